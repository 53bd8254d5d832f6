/**
 * The soak run's chart as a self-contained SVG, in the style of latency-chart.mjs: one panel per
 * measure (RSS, heap, active handles, HTTP p99, store size) against minutes, one line per shape
 * and service. The panels, the title and the colours per shape can be given (retention-soak.mjs
 * draws its two runs with them).
 */
import { niceStep } from './latency-chart.mjs';

const WIDTH = 820;
const PANEL_H = 150;
const MARGIN = { left: 70, right: 230, top: 40, bottom: 40, gap: 30 };
const COLORS = { embedded: ['#1f77b4', '#2ca02c'], kafka: ['#d62728', '#ff7f0e'] };

export function soakChart(report, { title, panels = defaultPanels(), colors = COLORS } = {}) {
  const heading =
    title ?? `Soak at half the measured maximum (${report.measured_at.slice(0, 10)}, ${report.minutes_per_shape} min per shape)`;
  return drawPanels(report, heading, panels, colors);
}

function defaultPanels() {
  return [
    {
      title: 'RSS (MiB)',
      series: () => [
        ['ingress', (p) => p.ingress_rss_mib],
        ['dispatcher', (p) => p.dispatcher_rss_mib],
      ],
    },
    {
      title: 'V8 heap used (MiB)',
      series: () => [
        ['ingress', (p) => p.ingress_heap_mib],
        ['dispatcher', (p) => p.dispatcher_heap_mib],
      ],
    },
    {
      title: 'active handles',
      series: () => [
        ['ingress', (p) => p.ingress_handles],
        ['dispatcher', (p) => p.dispatcher_handles],
      ],
    },
    { title: 'HTTP p99 per window (ms)', series: () => [['ingress', (p) => p.p99_ms]] },
    { title: 'store size (MiB)', series: () => [['events.sqlite + WAL', (p) => p.store_mib]] },
  ];
}

function drawPanels(report, title, panels, colors) {
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const height = MARGIN.top + panels.length * (PANEL_H + MARGIN.gap) + MARGIN.bottom;
  const maxX = Math.max(1, ...report.shapes.flatMap((shape) => shape.points.map((p) => p.minute))) * 1.02;
  const x = (v) => MARGIN.left + (v / maxX) * plotW;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${height}" fill="white"/>`,
    `<text x="${MARGIN.left}" y="22" font-size="14" font-weight="bold">${title}</text>`,
  ];
  panels.forEach((panel, index) => {
    const top = MARGIN.top + index * (PANEL_H + MARGIN.gap);
    const lines = report.shapes.flatMap((shape) =>
      panel.series(shape.shape).map(([service, pick], k) => ({
        name: `${shape.shape} ${service}`,
        color: colors[shape.shape][k],
        points: shape.points.map((p) => [p.minute, pick(p)]).filter(([, v]) => typeof v === 'number'),
      })),
    );
    const maxY = Math.max(1, ...lines.flatMap((line) => line.points.map(([, v]) => v))) * 1.15;
    const y = (v) => top + PANEL_H - (v / maxY) * PANEL_H;
    parts.push(`<text x="${MARGIN.left}" y="${top - 6}" font-weight="bold">${panel.title}</text>`);
    const step = niceStep(maxY / 4);
    for (let v = 0; v <= maxY; v += step) {
      parts.push(
        `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#e5e5e5"/>`,
      );
      parts.push(`<text x="${MARGIN.left - 8}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${Math.round(v * 10) / 10}</text>`);
    }
    parts.push(`<rect x="${MARGIN.left}" y="${top}" width="${plotW}" height="${PANEL_H}" fill="none" stroke="#999"/>`);
    lines.forEach((line, k) => {
      if (line.points.length > 0)
        parts.push(
          `<polyline fill="none" stroke="${line.color}" stroke-width="2" points="${line.points.map(([px, py]) => `${x(px).toFixed(1)},${y(py).toFixed(1)}`).join(' ')}"/>`,
        );
      const ly = top + 10 + k * 18;
      parts.push(
        `<line x1="${WIDTH - MARGIN.right + 15}" x2="${WIDTH - MARGIN.right + 35}" y1="${ly}" y2="${ly}" stroke="${line.color}" stroke-width="2"/>`,
      );
      parts.push(`<text x="${WIDTH - MARGIN.right + 40}" y="${ly + 4}">${line.name}</text>`);
    });
  });
  const bottom = MARGIN.top + panels.length * (PANEL_H + MARGIN.gap) - MARGIN.gap;
  const step = niceStep(maxX / 6);
  for (let v = 0; v <= maxX; v += step)
    parts.push(`<text x="${x(v).toFixed(1)}" y="${bottom + 16}" text-anchor="middle">${Math.round(v * 10) / 10}</text>`);
  parts.push(`<text x="${MARGIN.left + plotW / 2}" y="${bottom + 34}" text-anchor="middle">minutes since the shape's soak started</text>`);
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
