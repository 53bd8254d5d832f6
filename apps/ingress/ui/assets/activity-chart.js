// The Config page's chart of the webhook's last 24 hours (GET …/webhook/activity/hourly): a
// stacked bar per hour (accepted, accepted despite a filter error, filtered, refused), drawn as
// inline SVG by hand: the page's CSP allows no inline style or script and no other origin, and a
// spike is quicker to see than to read in rows. The same counts are written out as text (totals,
// the SVG's label, a table per hour) for screen readers and for anyone who prefers numbers.
import { byId, clear, h, setError, show } from './dom.js';
import { attemptReasonLabel } from './labels.js';
import { SignedOutError, api, describeFailure } from './session.js';
import { routinePath } from './config-state.js';

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 720;
const HEIGHT = 200;
const PLOT_TOP = 16;
const PLOT_BOTTOM = 176;
const BAR_GAP = 6;

/** Stacked bottom to top, in this order; `class` colours them (app.css). */
const SERIES = [
  { key: 'accepted', label: 'Accepted', class: 'chart-accepted' },
  { key: 'filter_errors', label: 'Accepted, filter failed', class: 'chart-filter-error' },
  { key: 'filtered', label: 'Filtered out', class: 'chart-filtered' },
  { key: 'refused', label: 'Refused', class: 'chart-refused' },
];

/** An SVG element: attributes set as plain values (never markup). */
function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  for (const child of children) element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return element;
}

const refusedOf = (hour) => Object.values(hour.refused).reduce((sum, n) => sum + n, 0);
const valueOf = (hour, key) => (key === 'refused' ? refusedOf(hour) : hour[key]);
const totalOf = (hour) => SERIES.reduce((sum, series) => sum + valueOf(hour, series.key), 0);
const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/** "payload schema mismatch 2, wrong secret 1" (or "" when nothing was refused). */
function reasonsText(refused) {
  return Object.entries(refused)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([reason, n]) => `${attemptReasonLabel(reason)} ${n}`)
    .join(', ');
}

function hourLabel(iso) {
  return new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/** The 24 hours summed: what the legend, the totals line and the SVG's label say. */
function totals(hours) {
  const sum = { accepted: 0, filter_errors: 0, filtered: 0, refused: 0, reasons: {} };
  for (const hour of hours) {
    for (const series of SERIES) sum[series.key] += valueOf(hour, series.key);
    for (const [reason, n] of Object.entries(hour.refused)) sum.reasons[reason] = (sum.reasons[reason] ?? 0) + n;
  }
  return sum;
}

function summaryText(sum) {
  const refused = reasonsText(sum.reasons);
  return (
    `Last 24 hours: ${sum.accepted} accepted, ${plural(sum.filter_errors, 'filter error', 'filter errors')}, ` +
    `${sum.filtered} filtered out, ${sum.refused} refused${refused ? ` (${refused})` : ''}.`
  );
}

function hourText(hour) {
  const refused = reasonsText(hour.refused);
  return (
    `${hourLabel(hour.hour)}: ${hour.accepted} accepted, ${plural(hour.filter_errors, 'filter error', 'filter errors')}, ` +
    `${hour.filtered} filtered out, ${refusedOf(hour)} refused${refused ? ` (${refused})` : ''}`
  );
}

function drawChart(hours, sum) {
  const max = Math.max(1, ...hours.map(totalOf));
  const scale = (PLOT_BOTTOM - PLOT_TOP) / max;
  const slot = WIDTH / hours.length;
  const chart = svg('svg', {
    id: 'activity-chart-svg',
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    role: 'img',
    'aria-label': summaryText(sum),
    class: 'activity-chart-svg',
  });
  chart.append(
    svg('line', { x1: 0, x2: WIDTH, y1: PLOT_BOTTOM, y2: PLOT_BOTTOM, class: 'chart-axis' }),
    svg('text', { x: 2, y: PLOT_TOP - 4, class: 'chart-label' }, `max ${max} per hour`),
  );
  hours.forEach((hour, index) => {
    const x = index * slot + BAR_GAP / 2;
    const bar = svg('g', { class: 'chart-bar', 'data-hour': hour.hour, 'data-total': totalOf(hour) }, svg('title', {}, hourText(hour)));
    let y = PLOT_BOTTOM;
    for (const series of SERIES) {
      const value = valueOf(hour, series.key);
      if (value === 0) continue;
      const height = value * scale;
      y -= height;
      const title = series.key === 'refused' ? `${series.label} ${value}: ${reasonsText(hour.refused)}` : `${series.label} ${value}`;
      bar.append(
        svg(
          'rect',
          { x, y, width: slot - BAR_GAP, height, class: series.class, 'data-series': series.key, 'data-value': value },
          svg('title', {}, `${hourLabel(hour.hour)}: ${title}`),
        ),
      );
    }
    chart.append(bar);
    // Every sixth hour and the current one, whose label ends at its bar's right edge (inside the picture).
    if (index === hours.length - 1) {
      chart.append(svg('text', { x: x + slot - BAR_GAP, y: HEIGHT - 6, 'text-anchor': 'end', class: 'chart-label' }, hourLabel(hour.hour)));
    } else if (index % 6 === 0 && index < hours.length - 3) {
      chart.append(svg('text', { x, y: HEIGHT - 6, class: 'chart-label' }, hourLabel(hour.hour)));
    }
  });
  return chart;
}

function renderLegend(sum) {
  const legend = byId('activity-chart-legend');
  clear(legend);
  for (const series of SERIES) {
    const reasons = series.key === 'refused' ? reasonsText(sum.reasons) : '';
    legend.append(
      h(
        'li',
        { 'data-id': series.key },
        h('span', { class: `chart-swatch ${series.class}`, 'aria-hidden': 'true' }),
        `${series.label}: ${sum[series.key]}${reasons ? ` (${reasons})` : ''}`,
      ),
    );
  }
}

function renderTable(hours) {
  const body = byId('activity-chart-body');
  clear(body);
  for (const hour of hours) {
    body.append(
      h(
        'tr',
        { 'data-id': hour.hour },
        h('td', {}, h('time', { datetime: hour.hour, text: hourLabel(hour.hour) })),
        h('td', { text: hour.accepted }),
        h('td', { text: hour.filter_errors }),
        h('td', { text: hour.filtered }),
        h('td', { text: refusedOf(hour) === 0 ? '0' : `${refusedOf(hour)} (${reasonsText(hour.refused)})` }),
      ),
    );
  }
}

/** Fetches the 24 hours and draws them (called whenever the activity listings refresh). */
export async function loadActivityChart() {
  const error = byId('activity-chart-error');
  try {
    const answer = await api('GET', routinePath('/webhook/activity/hourly'));
    if (!answer.ok) {
      setError(error, `Could not load the last 24 hours: ${describeFailure(answer)}`);
      return;
    }
    setError(error, '');
    const hours = answer.json.hours;
    const sum = totals(hours);
    const figure = byId('activity-chart-figure');
    clear(figure);
    figure.append(drawChart(hours, sum));
    byId('activity-chart-totals').textContent = summaryText(sum);
    renderLegend(sum);
    renderTable(hours);
    show(byId('activity-chart-details'), true);
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) setError(error, 'Could not reach the server.');
  }
}
