/**
 * The benchmark's latency-against-load chart as a self-contained SVG (no charting library: a
 * handful of polylines on log-scaled axes).
 */
const WIDTH = 800;
const HEIGHT = 420;
const MARGIN = { left: 70, right: 230, top: 40, bottom: 55 };

export function latencyChart(report) {
  const series = [
    { name: 'HTTP p99, embedded', color: '#1f77b4', points: report.embedded.points.map((p) => [p.offered_rps, p.http_p99_ms]) },
    { name: 'POST → run p50, embedded', color: '#2ca02c', points: report.embedded.points.map((p) => [p.offered_rps, p.e2e_p50_ms]) },
    { name: 'POST → run p99, embedded', color: '#d62728', points: report.embedded.points.map((p) => [p.offered_rps, p.e2e_p99_ms]) },
  ];
  if (report.kafka) {
    series.push({ name: 'POST → run p50, Kafka', color: '#9467bd', points: report.kafka.points.map((p) => [p.offered_rps, p.e2e_p50_ms]) });
    series.push({ name: 'POST → run p99, Kafka', color: '#ff7f0e', points: report.kafka.points.map((p) => [p.offered_rps, p.e2e_p99_ms]) });
  }
  const all = series.flatMap((s) => s.points).filter(([x, y]) => x > 0 && y !== null && y > 0);
  const maxX = Math.max(...all.map(([x]) => x)) * 1.05;
  const minY = 1;
  const maxY = Math.max(10, ...all.map(([, y]) => y)) * 1.5;
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (v) => MARGIN.left + (v / maxX) * plotW;
  const y = (v) =>
    MARGIN.top + plotH - ((Math.log10(Math.max(v, minY)) - Math.log10(minY)) / (Math.log10(maxY) - Math.log10(minY))) * plotH;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${MARGIN.left}" y="22" font-size="14" font-weight="bold">Latency against offered load (${report.measured_at.slice(0, 10)}, ${report.machine.cpus} cores)</text>`,
  ];
  for (let decade = 1; decade <= maxY; decade *= 10) {
    for (const step of [1, 2, 5]) {
      const v = decade * step;
      if (v < minY || v > maxY) continue;
      parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${y(v)}" y2="${y(v)}" stroke="#e5e5e5"/>`);
      parts.push(`<text x="${MARGIN.left - 8}" y="${y(v) + 4}" text-anchor="end">${v}</text>`);
    }
  }
  const step = niceStep(maxX / 5);
  for (let v = 0; v <= maxX; v += step) {
    parts.push(`<line x1="${x(v)}" x2="${x(v)}" y1="${MARGIN.top}" y2="${MARGIN.top + plotH}" stroke="#f0f0f0"/>`);
    parts.push(`<text x="${x(v)}" y="${MARGIN.top + plotH + 18}" text-anchor="middle">${v}</text>`);
  }
  parts.push(`<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 12}" text-anchor="middle">offered load (requests/s)</text>`);
  parts.push(`<text transform="translate(18 ${MARGIN.top + plotH / 2}) rotate(-90)" text-anchor="middle">milliseconds (log scale)</text>`);
  parts.push(`<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`);
  series.forEach((s, index) => {
    const points = s.points.filter(([px, py]) => px > 0 && py !== null);
    if (points.length > 0) {
      parts.push(
        `<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${points.map(([px, py]) => `${x(px).toFixed(1)},${y(py).toFixed(1)}`).join(' ')}"/>`,
      );
      for (const [px, py] of points) parts.push(`<circle cx="${x(px).toFixed(1)}" cy="${y(py).toFixed(1)}" r="3" fill="${s.color}"/>`);
    }
    const ly = MARGIN.top + 10 + index * 20;
    parts.push(
      `<line x1="${WIDTH - MARGIN.right + 15}" x2="${WIDTH - MARGIN.right + 35}" y1="${ly}" y2="${ly}" stroke="${s.color}" stroke-width="2"/>`,
    );
    parts.push(`<text x="${WIDTH - MARGIN.right + 40}" y="${ly + 4}">${escape(s.name)}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

/** Text made safe inside SVG markup. */
export function escape(text) {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** 1, 2 or 5 times a power of ten, at least `raw`. */
export function niceStep(raw) {
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const factor of [1, 2, 5, 10]) if (factor * power >= raw) return factor * power;
  return 10 * power;
}
