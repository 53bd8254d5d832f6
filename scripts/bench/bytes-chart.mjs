/**
 * Bytes at rest per delivery as a self-contained SVG, in the style of latency-chart.mjs: on top one
 * stacked bar (the whole DATA_DIR, one segment per table or index, the target marked), then one
 * bar per table, index and file, biggest first, coloured by the file it lives in.
 */
import { escape, niceStep } from './latency-chart.mjs';

const WIDTH = 820;
const BAR = 18;
const GAP = 6;
const MARGIN = { left: 300, right: 90, top: 50, bottom: 45 };
const COLORS = { 'events.sqlite': '#1f77b4', 'readmodels.sqlite': '#ff7f0e' };
const OTHER_COLOR = '#8c8c8c';

/** `report.bars`: [{ label, file, bytes_per_delivery }] biggest first; `report.total_bytes_per_delivery`, `report.target_bytes_per_delivery`. */
export function bytesChart(report) {
  const bars = report.bars.filter((bar) => bar.bytes_per_delivery > 0);
  const total = report.total_bytes_per_delivery;
  const target = report.target_bytes_per_delivery;
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const maxX = Math.max(total, target) * 1.05;
  const x = (v) => MARGIN.left + (v / maxX) * plotW;
  const rowY = (index) => MARGIN.top + (index + 2) * (BAR + GAP);
  const height = rowY(bars.length) + MARGIN.bottom;
  const color = (file) => COLORS[file] ?? OTHER_COLOR;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${height}" fill="white"/>`,
    `<text x="20" y="22" font-size="14" font-weight="bold">${escape(report.title)}</text>`,
  ];
  const step = niceStep(maxX / 6);
  for (let v = 0; v <= maxX; v += step) {
    parts.push(`<line x1="${x(v).toFixed(1)}" x2="${x(v).toFixed(1)}" y1="${MARGIN.top}" y2="${height - MARGIN.bottom}" stroke="#eee"/>`);
    parts.push(`<text x="${x(v).toFixed(1)}" y="${height - MARGIN.bottom + 16}" text-anchor="middle">${v}</text>`);
  }
  parts.push(
    `<text x="${MARGIN.left + plotW / 2}" y="${height - 10}" text-anchor="middle">bytes at rest per delivery (after a WAL checkpoint)</text>`,
  );
  // The stacked total: each bar's share in the same order.
  let from = 0;
  const totalY = MARGIN.top;
  for (const bar of bars) {
    const width = x(from + bar.bytes_per_delivery) - x(from);
    parts.push(
      `<rect x="${x(from).toFixed(1)}" y="${totalY}" width="${width.toFixed(1)}" height="${BAR}" fill="${color(bar.file)}" stroke="white" stroke-width="0.5"/>`,
    );
    from += bar.bytes_per_delivery;
  }
  parts.push(`<text x="${MARGIN.left - 8}" y="${totalY + BAR - 5}" text-anchor="end" font-weight="bold">all of DATA_DIR</text>`);
  parts.push(`<text x="${(x(total) + 6).toFixed(1)}" y="${totalY + BAR - 5}" font-weight="bold">${Math.round(total)}</text>`);
  parts.push(
    `<line x1="${x(target).toFixed(1)}" x2="${x(target).toFixed(1)}" y1="${totalY - 6}" y2="${height - MARGIN.bottom}" stroke="#d62728" stroke-dasharray="5,4" stroke-width="1.5"/>`,
  );
  parts.push(`<text x="${(x(target) + 4).toFixed(1)}" y="${totalY - 8}" fill="#d62728">target ${target}</text>`);
  bars.forEach((bar, index) => {
    const y = rowY(index);
    parts.push(
      `<rect x="${MARGIN.left}" y="${y}" width="${(x(bar.bytes_per_delivery) - MARGIN.left).toFixed(1)}" height="${BAR}" fill="${color(bar.file)}"/>`,
    );
    parts.push(`<text x="${MARGIN.left - 8}" y="${y + BAR - 5}" text-anchor="end">${escape(bar.label)}</text>`);
    parts.push(`<text x="${(x(bar.bytes_per_delivery) + 6).toFixed(1)}" y="${y + BAR - 5}">${label(bar.bytes_per_delivery)}</text>`);
  });
  const legend = [...Object.entries(COLORS), ['other files', OTHER_COLOR]];
  legend.forEach(([name, fill], index) => {
    const lx = MARGIN.left + index * 160;
    const ly = MARGIN.top + BAR + GAP + 4;
    parts.push(`<rect x="${lx}" y="${ly}" width="12" height="12" fill="${fill}"/>`);
    parts.push(`<text x="${lx + 18}" y="${ly + 10}">${escape(name)}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

function label(bytes) {
  return bytes < 10 ? bytes.toFixed(1) : String(Math.round(bytes));
}
