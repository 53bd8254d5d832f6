/**
 * What `npm run bench` writes besides its JSON: the markdown page (docs/bench/latest.md) and the
 * part of a load run each row keeps.
 */

export function markdown(report) {
  const lines = [
    `# Benchmark, ${report.measured_at.slice(0, 10)}`,
    '',
    `${report.machine.cpus} × ${report.machine.cpu}, Node ${report.machine.node}; load generator, services and broker on the same machine; ${report.body_bytes}-byte JSON body; ${report.seconds_per_run} s per run.`,
    '',
    '## Ingress against bare Fastify (same run, same load generator)',
    '',
    '| connections | Fastify req/s | ingress req/s | ratio | Fastify p50 / p99 / p99.9 (ms) | ingress p50 / p99 / p99.9 (ms) | ingress CPU per request |',
    '|---|---|---|---|---|---|---|',
    ...report.http.map(
      (row) =>
        `| ${row.connections} | ${Math.round(row.fastify.rps)} | ${Math.round(row.ingress.rps)} | ${row.ratio} | ${row.fastify.p50_ms} / ${row.fastify.p99_ms} / ${row.fastify.p999_ms} | ${row.ingress.p50_ms} / ${row.ingress.p99_ms} / ${row.ingress.p999_ms} | ${row.ingress.cpu_ms_per_request} ms |`,
    ),
    '',
    'Every 202 is durable: answered once its `DeliveryAccepted` is committed and fsynced (the writer thread commits concurrent appends together).',
    '',
    ...(report.rules
      ? [
          '## Routine rules: a typical filter and schema against none (same ingress, alternating rounds)',
          '',
          `CPU per 202 with / without: **${report.rules.cpu_ratio}**; requests/s with / without: ${report.rules.rps_ratio} (medians of ${report.rules.pairs.length} pairs of ${report.rules.seconds_per_round} s at ${report.rules.connections} connections, ${report.rules.body_bytes}-byte body). See docs/bench/routine-rules/.`,
          '',
        ]
      : []),
    '## POST → run created (embedded default, dispatcher running)',
    '',
    '| offered req/s | achieved | HTTP p50 / p99 (ms) | POST → run p50 / p99 (ms) | runs missing |',
    '|---|---|---|---|---|',
    ...report.embedded.points.map(
      (p) =>
        `| ${p.offered_rps} | ${Math.round(p.achieved_rps)} | ${p.http_p50_ms} / ${p.http_p99_ms} | ${p.e2e_p50_ms} / ${p.e2e_p99_ms} | ${p.runs_missing} |`,
    ),
    '',
    `Half the measured maximum (${Math.round(report.embedded.max_rps / 2)}/s): POST → run created p99 **${report.e2e_p99_ms} ms**. Latency is read from the store: each \`DeliveryAccepted\`'s commit time against its \`RunCreated\`'s.`,
    '',
    `## Dispatcher: ${report.dispatcher.deliveries} waiting deliveries drained at **${report.dispatcher.runs_per_s} runs/s** (first to last run, ${report.dispatcher.seconds} s).`,
    '',
  ];
  if (report.kafka) {
    lines.push(
      '## Kafka shape (ingress + relay → broker → dispatcher consumer; SQLite store; test broker on this machine)',
      '',
      '| offered req/s | achieved | POST → run p50 / p99 (ms) | drained after (ms) | sustained |',
      '|---|---|---|---|---|',
      ...report.kafka.points.map(
        (p) =>
          `| ${p.offered_rps} | ${Math.round(p.achieved_rps)} | ${p.e2e_p50_ms} / ${p.e2e_p99_ms} | ${p.drained_after_ms ?? 'not within 30 s'} | ${p.sustained ? 'yes' : 'no'} |`,
      ),
      '',
      `Sustained end to end: **${report.kafka.sustained_rps} deliveries/s** (every 202 a run, drained within 2 s of the load's end).`,
      '',
    );
  }
  lines.push('![latency against load](latency.svg)', '');
  return lines.join('\n');
}

/** What a row keeps of a load run (its connections and duration are the row's). */
export function slim(result) {
  return {
    requests: result.requests,
    rps: round(result.rps),
    p50_ms: result.p50_ms,
    p99_ms: result.p99_ms,
    p999_ms: result.p999_ms,
    errors: result.errors,
    unexpected_status: result.unexpected_status,
    cpu_ms_per_request: result.cpu_ms_per_request,
  };
}

export function round(value) {
  return Math.round(value * 100) / 100;
}
