/**
 * Resuming a replay where it stopped, on a store where several events share a commit position
 * (EventStoreDB: the events of one multi-event append have one commit position and distinct
 * prepare positions). The resume hint is an exclusive bound (`--after-position c/p`): the rest of
 * a partly replayed commit is not skipped.
 */
import { comparePositions, formatPosition, type EventStore, type GlobalPosition, type RecordedEvent } from '@wts/event-store';
import { scanSelection, type EventSelection } from '../src/event-selection';
import { parseReplayOptions } from '../src/replay.options';
import { formatReplayReport, ReplayTally } from '../src/replay.report';
import { dispatcherClassifier, emptyCounts } from '../src/replay-targets';

function event(commit: number, prepare: number): RecordedEvent {
  return {
    id: `00000000-0000-4000-8000-${String(commit * 1000 + prepare).padStart(12, '0')}`,
    streamId: `delivery-dlv_${commit}_${prepare}`,
    revision: 0n,
    position: { commit: BigInt(commit), prepare: BigInt(prepare) },
    type: 'DeliveryAccepted',
    data: {},
    metadata: {},
    createdAt: new Date('2025-01-31T08:00:00Z'),
  };
}

/** $all as EventStoreDB orders it: two appends of three events each, one commit position per append. */
const ALL: readonly RecordedEvent[] = [event(100, 10), event(100, 20), event(100, 30), event(200, 110), event(200, 120), event(200, 130)];

/** readAll as the port defines it: strictly after `after`, in global order, at most `limit`. */
const store = {
  readAll: async (options: { readonly after?: GlobalPosition; readonly limit: number }) =>
    ALL.filter((e) => !options.after || comparePositions(e.position, options.after) > 0).slice(0, options.limit),
} as unknown as EventStore;

async function positions(selection: Partial<EventSelection>, batchSize = 2): Promise<string[]> {
  const out: string[] = [];
  const full: EventSelection = { streams: [], categoryPrefixes: [], ...selection };
  for await (const batch of scanSelection(store, full, { batchSize, upTo: ALL[ALL.length - 1].position })) {
    out.push(...batch.events.map((e) => formatPosition(e.position)));
  }
  return out;
}

describe('resuming a replay inside a multi-event commit', () => {
  it('an interrupted replay prints the last position done as --after-position', () => {
    const tally = new ReplayTally(dispatcherClassifier);
    tally.add(ALL.slice(0, 1));
    const text = formatReplayReport(
      tally.report({ dryRun: false, counts: emptyCounts(), interrupted: true, resumeAfter: ALL[0].position }),
    );
    expect(text).toContain('resume with: --after-position 100/10');
    expect(text).not.toContain('--from-position');
  });

  it('--after-position c/p reads exactly what follows c/p, the rest of its commit included', async () => {
    const plan = parseReplayOptions({ to: 'dispatcher', afterPosition: '100/10' });
    expect(await positions(plan.selection)).toEqual(['100/20', '100/30', '200/110', '200/120', '200/130']);
    expect(await positions(parseReplayOptions({ to: 'dispatcher', afterPosition: '200/120' }).selection, 1)).toEqual(['200/130']);
  });

  it('--from-position stays inclusive; the old hint (commit+1/prepare+1) would have skipped the rest of the commit', async () => {
    expect(await positions(parseReplayOptions({ to: 'dispatcher', fromPosition: '100/20' }).selection)).toEqual([
      '100/20',
      '100/30',
      '200/110',
      '200/120',
      '200/130',
    ]);
    expect(await positions(parseReplayOptions({ to: 'dispatcher', fromPosition: '101/11' }).selection)).toEqual([
      '200/110',
      '200/120',
      '200/130',
    ]);
  });
});
