/**
 * docs/bench/bytes-at-rest.md from the measured report (scripts/bench/bytes-at-rest.mjs): the
 * method, the tables, where the bytes go and what issue 31's changes would take away.
 */

const number = (value) => (value === null || value === undefined ? '–' : Math.round(value).toLocaleString('en-US'));
const share = (part, whole) => `${Math.round((part / whole) * 1000) / 10} %`;

export function markdown(report) {
  const perDelivery = report.bytes_per_delivery;
  const objects = Object.entries(report.databases)
    .flatMap(([file, db]) => db.objects.map((object) => ({ file, ...object })))
    .sort((a, b) => b.bytes - a.bytes);
  const dbstat = Object.values(report.databases).every((db) => db.method === 'dbstat');
  const lines = [
    `# Bytes at rest per delivery, ${report.measured_at.slice(0, 10)}`,
    '',
    `**${number(perDelivery)} bytes per delivery** at rest (every file under DATA_DIR after a WAL checkpoint, divided by ${number(report.deliveries)} deliveries) for the bench's ${report.body_bytes}-byte body; issue 31's target is at most ${number(report.target_bytes_per_delivery)}.`,
    '',
    '## Method',
    '',
    `\`npm run bench:bytes\` (scripts/bench/bytes-at-rest.mjs) starts the ingress and the run-dispatcher from dist/ on a fresh temporary DATA_DIR on 127.0.0.1 (embedded SQLite event store and read models), sets up one webhook, and sends ${number(report.deliveries)} deliveries of the body \`npm run bench\` sends, at most ${report.load.offered_rps}/s over ${report.load.connections} connections (${report.load.unexpected_status} answers other than 202, ${report.load.errors} errors). It waits until every delivery has its run and the read-model projector's checkpoint has reached the store's last event (${report.settled.seconds_after_load} s after the load), stops both services with SIGTERM (${report.stopped.map((s) => `${s.service} exit ${s.signal ?? s.code}`).join(', ')}), runs \`PRAGMA wal_checkpoint(TRUNCATE)\` on each SQLite file, and then measures every file under DATA_DIR. The split by table and index is SQLite's ${dbstat ? '`dbstat` virtual table (better-sqlite3 is built with SQLITE_ENABLE_DBSTAT_VTAB): every page of a file belongs to exactly one row below, free pages included' : '`PRAGMA page_count` and `freelist_count` per file only: this build of better-sqlite3 has no `dbstat`'}. Everything is divided by the number of deliveries, so the few events of the set-up (account, routine, webhook) are counted in too. Issue 31's ~5.2 KB came from the soak, whose store figure (scripts/bench/soak.mjs) is events.sqlite and its WAL only, with a smaller body; here events.sqlite alone is ${number(report.files.find((f) => f.name === 'events.sqlite')?.bytes_per_delivery)} bytes per delivery. ${report.machine.cpus} × ${report.machine.cpu}, Node ${report.machine.node}.`,
    '',
    '## Files',
    '',
    '| file | as the services left it (bytes) | after the checkpoint (bytes) | per delivery |',
    '|---|---:|---:|---:|',
    ...mergeFiles(report).map((f) => `| ${f.name} | ${number(f.as_left)} | ${number(f.bytes)} | ${number(f.bytes_per_delivery)} |`),
    `| **all** | ${number(report.files_as_left.reduce((s, f) => s + f.bytes, 0))} | ${number(report.total_bytes)} | **${number(perDelivery)}** |`,
    '',
    walSentence(report),
    '',
    '## By table and index, biggest first',
    '',
    '| file | table or index | kind | bytes per delivery | share | pages | unused bytes in its pages |',
    '|---|---|---|---:|---:|---:|---:|',
    ...objects
      .filter((o) => o.bytes_per_delivery >= 1)
      .map(
        (o) =>
          `| ${o.file} | ${o.name} | ${o.kind}${o.kind === 'index' ? ` on ${o.table} (${o.columns.join(', ')})` : ''} | ${number(o.bytes_per_delivery)} | ${share(o.bytes_per_delivery, perDelivery)} | ${number(o.pages)} | ${number(o.unused_bytes)} |`,
      ),
    ...smallObjects(objects, perDelivery),
    '',
    '## Event types (stored JSON, mean bytes)',
    '',
    '| type | events | per delivery | data | metadata | all text columns |',
    '|---|---:|---:|---:|---:|---:|',
    ...report.event_types.map(
      (t) =>
        `| ${t.type} | ${number(t.events)} | ${t.per_delivery} | ${number(t.data_bytes)} | ${number(t.metadata_bytes)} | ${number(t.text_bytes)} |`,
    ),
    '',
    ...payloadSection(report),
    ...whereTheBytesGo(report, objects),
    ...designSection(report),
    '![bytes at rest per delivery by table and index](bytes-at-rest.svg)',
    '',
  ];
  return lines.join('\n');
}

/** One row for the tables and indexes under a byte per delivery (empty ones: a page each). */
function smallObjects(objects, perDelivery) {
  const small = objects.filter((o) => o.bytes_per_delivery < 1);
  const bytes = small.reduce((sum, o) => sum + o.bytes_per_delivery, 0);
  const pages = small.reduce((sum, o) => sum + o.pages, 0);
  if (small.length === 0) return [];
  return [
    `| both | ${small.length} more, under 1 byte per delivery each | | ${bytes.toFixed(1)} | ${share(bytes, perDelivery)} | ${number(pages)} | |`,
  ];
}

function walSentence(report) {
  const moved = Object.entries(report.wal_checkpoints).map(
    ([file, c]) => `${file} ${c.checkpointed_frames} of ${c.wal_frames} frames moved${c.busy ? ' (busy)' : ''}`,
  );
  const walLeft = report.files_as_left.filter((f) => f.name.endsWith('-wal'));
  const left =
    walLeft.length === 0
      ? 'the services had left no WAL file: closing the last connection at a clean stop checkpoints and removes it'
      : `the services left ${walLeft.map((f) => `${f.name} (${number(f.bytes)} bytes)`).join(', ')}`;
  return `WAL checkpoint: ${moved.join(', ')}; ${left}.`;
}

function mergeFiles(report) {
  const asLeft = new Map(report.files_as_left.map((f) => [f.name, f.bytes]));
  const names = [...new Set([...report.files.map((f) => f.name), ...asLeft.keys()])];
  return names.map((name) => {
    const now = report.files.find((f) => f.name === name);
    return { name, as_left: asLeft.get(name) ?? 0, bytes: now?.bytes ?? 0, bytes_per_delivery: now?.bytes_per_delivery ?? 0 };
  });
}

function payloadSection(report) {
  const { payload } = report;
  return [
    `## The payload's copies (one delivery: ${payload.sample.deliveryId})`,
    '',
    `The payload a run gets is the body's \`data\` member, ${report.payload_bytes} bytes. Every row of every table of both SQLite files that names this delivery or its run was read, and each column searched for the payload in each form it could be written in (and for its marker text, \`note\`'s ${payload.marker.length} characters, so that a copy in any other form would still show):`,
    '',
    '| table | event type | column | form | copies | bytes |',
    '|---|---|---|---|---:|---:|',
    ...payload.copies.map((c) => `| ${c.table} | ${c.type ?? ''} | ${c.column} | ${c.form} | ${c.count} | ${number(c.bytes)} |`),
    '',
    `**${payload.copies_per_delivery} copies of the payload per delivery, ${number(payload.payload_bytes_per_delivery)} bytes**; rows read: ${payload.rows.map((r) => `${r.file} ${r.table}${r.type ? ` (${r.type})` : ''}`).join(', ')}. Across the raw bytes of every file under DATA_DIR (free pages included) the marker appears ${payload.marker_per_delivery_in_files} times per delivery (${payload.marker_in_files.map((f) => `${f.name}: ${number(f.occurrences)}`).join(', ')}).`,
    '',
  ];
}

function whereTheBytesGo(report, objects) {
  const perDelivery = report.bytes_per_delivery;
  const run = report.payload.rows.find((row) => row.type === 'RunCreated')?.data_fields ?? {};
  const runCopy = report.payload.copies.find((c) => c.type === 'RunCreated')?.bytes ?? 0;
  const types = report.event_types.filter((t) => t.per_delivery >= 0.5);
  const top = objects.slice(0, 5).map((o) => `${o.name} ${number(o.bytes_per_delivery)} (${share(o.bytes_per_delivery, perDelivery)})`);
  const fields = Object.entries(run)
    .sort((a, b) => b[1] - a[1])
    .map(([key, bytes]) => `${key} ${number(bytes)}`);
  return [
    '## Where the bytes go',
    '',
    `Biggest first: ${top.join('; ')}.`,
    '',
    ...packingSentence(report, objects),
    `Per delivery the event store holds ${types.map((t) => `one ${t.type} (${number(t.data_bytes)} bytes of data + ${number(t.metadata_bytes)} of metadata)`).join(' and ')}. RunCreated's data by field, as stored: ${fields.join(', ')}. Its \`initialMessage\` is the framed message: the fixed preamble, delivery details and closing lines around one payload line; the payload is ${number(runCopy)} of its ${number(run.initialMessage)} bytes, the framing the rest, and both are written again for every delivery.`,
    '',
  ];
}

/** How full the events table's pages are: rows too big to share a page leave the rest of it empty. */
function packingSentence(report, objects) {
  const events = objects.find((o) => o.file === 'events.sqlite' && o.name === 'events');
  const pages = report.events_leaf_pages;
  if (!events || !pages) return [];
  const leaves = pages.reduce((sum, p) => sum + p.pages, 0);
  const single = pages.find((p) => p.rows === 1);
  const changes = report.events_type_changes;
  return [
    `${share(events.unused_bytes, events.bytes)} of the events table's pages is unused space (${number(events.unused_bytes / report.deliveries)} bytes per delivery). Its ${number(leaves)} leaf pages by rows held: ${pages.map((p) => `${p.rows} row${p.rows === 1 ? '' : 's'}: ${number(p.pages)} page${p.pages === 1 ? '' : 's'} (${number(p.mean_unused_bytes)} bytes unused on average)`).join(', ')}.${single ? ` A RunCreated row does not fit twice in a ${number(report.databases['events.sqlite'].page_size)}-byte page, and rows of one type come in runs (in commit order the type changes only ${number(changes.type_changes)} times in ${number(changes.rows)} rows: the ingress's writes and the dispatcher's interleave in stretches, not row by row), so most RunCreated rows have a page to themselves.` : ''}`,
    '',
  ];
}

/** Bytes that hold a kept payload or index kept payloads only: what expiry (or erasure) gives back. */
const REMOVABLE = (o) => /^payloads_\d+$/.test(o.name) || (o.kind === 'index' && /kept|due/.test(o.name));

function designSection(report) {
  const title = '## What goes when the payloads expire';
  const objects = Object.values(report.databases).flatMap((db) => db.objects);
  const removable = objects.filter(REMOVABLE);
  const gone = removable.reduce((sum, o) => sum + o.bytes_per_delivery, 0);
  const after = report.bytes_per_delivery - gone;
  const storeAfter =
    report.databases['events.sqlite'].bytes_per_delivery -
    removable.filter((o) => !o.name.startsWith('rm_')).reduce((sum, o) => sum + o.bytes_per_delivery, 0);
  const target = report.target_bytes_per_delivery;
  return [
    title,
    '',
    `Payloads are kept apart from the events (issue 31): \`DeliveryAccepted\` holds no payload and \`RunCreated\` no framed message (it is framed when read). A kept payload costs its body (\`payloads_<expiry hour>\` tables) and its place in the indexes of kept payloads: ${removable.map((o) => `${o.name} ${number(o.bytes_per_delivery)}`).join(', ')} — ${number(gone)} bytes per delivery in all. Once it expires (or is erased) its hour's table is dropped and those partial indexes no longer hold it: about **${number(after)} bytes per delivery** stay at rest, the record of what happened (events.sqlite about ${number(storeAfter)}, the read models the rest).`,
    '',
    `Target: at most ${number(target)} bytes per delivery. ${after <= target ? 'Within it once the payloads are gone.' : `${number(after - target)} above it even once the payloads are gone: what remains is the record itself — the two events' ids and metadata (trace context, correlation and causation ids), RunCreated's routine snapshot and the account, the event-store indexes, and the read models' rows and indexes.`}`,
    '',
  ];
}
