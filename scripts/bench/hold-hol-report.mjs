/**
 * hold-hol.mjs's figures: a phase's latency percentiles, ratios against phase (a), the table a run
 * prints, and the medians over runs.
 */
import { median } from './bench-kit.mjs';
import { percentile } from './store-timing.mjs';

export function summarize(latencies) {
  const sorted = [...latencies].sort((x, y) => x - y);
  return {
    n: sorted.length,
    p50_ms: percentile(sorted, 50),
    p90_ms: percentile(sorted, 90),
    p99_ms: percentile(sorted, 99),
    max_ms: sorted.at(-1) ?? null,
  };
}

export const ratio = (value, base) => (value === null || !base ? null : Math.round((value / base) * 100) / 100);

export function table(result) {
  const fmt = (v) => (v === null || v === undefined ? '–' : String(v));
  const rows = [
    ['(a) A idle', result.phases.a_idle, null],
    ['(b) A held, receiving', result.phases.b_held, result.phases.b_held.ratio_to_a],
    ['(c) A releasing', result.phases.c_release, result.phases.c_release.ratio_to_a],
  ];
  const lines = [
    `${result.shape}: B's DeliveryAccepted → RunCreated (ms)`,
    'phase                   n     p50   p90   p99   max   ×p50  ×p90  ×p99',
  ];
  for (const [name, p, r] of rows) {
    lines.push(
      `${name.padEnd(22)} ${fmt(p.n).padStart(5)} ${fmt(p.p50_ms).padStart(5)} ${fmt(p.p90_ms).padStart(5)} ${fmt(p.p99_ms).padStart(5)} ${fmt(p.max_ms).padStart(5)}  ${fmt(r?.p50).padStart(5)} ${fmt(r?.p90).padStart(5)} ${fmt(r?.p99).padStart(5)}`,
    );
  }
  return lines.join('\n');
}

/** Per shape, the median over the runs of each phase's percentiles and ratios. */
export function medians(results) {
  const out = {};
  for (const shape of new Set(results.map((result) => result.shape))) {
    const runs = results.filter((result) => result.shape === shape);
    const of = (pick) => {
      const values = runs.map(pick).filter((value) => value !== null && value !== undefined);
      return values.length > 0 ? Math.round(median(values) * 100) / 100 : null;
    };
    out[shape] = { runs: runs.length };
    for (const phase of ['a_idle', 'b_held', 'c_release']) {
      out[shape][phase] = {
        p50_ms: of((r) => r.phases[phase].p50_ms),
        p90_ms: of((r) => r.phases[phase].p90_ms),
        p99_ms: of((r) => r.phases[phase].p99_ms),
        ...(phase === 'a_idle'
          ? {}
          : {
              ratio_to_a: {
                p50: of((r) => r.phases[phase].ratio_to_a.p50),
                p90: of((r) => r.phases[phase].ratio_to_a.p90),
                p99: of((r) => r.phases[phase].ratio_to_a.p99),
              },
            }),
      };
    }
  }
  return out;
}
