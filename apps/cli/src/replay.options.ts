import { comparePositions, formatPosition, type GlobalPosition } from '@wts/event-store';
import { UsageError } from './cli.errors';
import { CATEGORY_NAMES, categoryPrefixes, type EventSelection } from './event-selection';

export type ReplayTargetName = 'kafka' | 'dispatcher';
export const REPLAY_TARGETS: readonly ReplayTargetName[] = ['kafka', 'dispatcher'];

/** The options as commander hands them over (strings; repeatable ones collected). */
export interface RawReplayOptions {
  readonly stream?: readonly string[];
  readonly category?: readonly string[];
  readonly fromPosition?: string;
  readonly afterPosition?: string;
  readonly toPosition?: string;
  readonly since?: string;
  readonly until?: string;
  readonly to?: string;
  readonly dryRun?: boolean;
  readonly json?: boolean;
  readonly batchSize?: string;
  readonly topicPrefix?: string;
  readonly operator?: string;
}

export interface ReplayPlan {
  readonly selection: EventSelection;
  readonly target: ReplayTargetName;
  readonly dryRun: boolean;
  readonly json: boolean;
  readonly batchSize: number;
  readonly topicPrefix: string;
}

export const DEFAULT_BATCH_SIZE = 500;
const MAX_BATCH_SIZE = 10_000;

/** Validates everything before anything is opened; throws UsageError listing every problem. */
export function parseReplayOptions(raw: RawReplayOptions): ReplayPlan {
  const problems: string[] = [];

  let target: ReplayTargetName = 'dispatcher';
  if (raw.to === undefined) problems.push(`--to is required: ${REPLAY_TARGETS.join(' or ')}`);
  else if (!(REPLAY_TARGETS as readonly string[]).includes(raw.to))
    problems.push(`--to must be ${REPLAY_TARGETS.join(' or ')}, got "${raw.to}"`);
  else target = raw.to as ReplayTargetName;

  const streams = [...new Set(raw.stream ?? [])];
  for (const stream of streams) {
    if (!/^[^\s]+$/.test(stream)) problems.push(`--stream must be a stream name without spaces, got "${stream}"`);
  }
  const categories = categoryPrefixes(raw.category ?? []);
  for (const name of categories.unknown) problems.push(`unknown --category "${name}" (known: ${CATEGORY_NAMES.join(', ')})`);

  const fromPosition = raw.fromPosition === undefined ? undefined : parsePositionOption('--from-position', raw.fromPosition, problems);
  const afterPosition = raw.afterPosition === undefined ? undefined : parsePositionOption('--after-position', raw.afterPosition, problems);
  const toPosition = raw.toPosition === undefined ? undefined : parsePositionOption('--to-position', raw.toPosition, problems);
  if (raw.fromPosition !== undefined && raw.afterPosition !== undefined)
    problems.push('--after-position and --from-position exclude each other (one lower bound)');
  if (fromPosition && toPosition && comparePositions(fromPosition, toPosition) > 0) {
    problems.push(`--from-position ${formatPosition(fromPosition)} is after --to-position ${formatPosition(toPosition)}`);
  }
  if (afterPosition && toPosition && comparePositions(afterPosition, toPosition) >= 0) {
    problems.push(`--after-position ${formatPosition(afterPosition)} is not before --to-position ${formatPosition(toPosition)}`);
  }
  const since = raw.since === undefined ? undefined : parseTimeOption('--since', raw.since, problems);
  const until = raw.until === undefined ? undefined : parseTimeOption('--until', raw.until, problems);
  if (since && until && since.getTime() >= until.getTime()) {
    problems.push(`--since ${since.toISOString()} must be before --until ${until.toISOString()} (until is exclusive)`);
  }

  let batchSize = DEFAULT_BATCH_SIZE;
  if (raw.batchSize !== undefined) {
    batchSize = /^\d+$/.test(raw.batchSize) ? Number(raw.batchSize) : Number.NaN;
    if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
      problems.push(`--batch-size must be an integer from 1 to ${MAX_BATCH_SIZE}, got "${raw.batchSize}"`);
    }
  }
  const topicPrefix = raw.topicPrefix ?? '';
  if (topicPrefix !== '' && target !== 'kafka') problems.push('--topic-prefix only applies to --to kafka');
  if (!/^[A-Za-z0-9._-]*$/.test(topicPrefix))
    problems.push(`--topic-prefix may hold only letters, digits, ".", "_" and "-", got "${topicPrefix}"`);

  if (problems.length > 0) throw new UsageError(problems);
  return {
    selection: { streams, categoryPrefixes: categories.prefixes, fromPosition, afterPosition, toPosition, since, until },
    target,
    dryRun: raw.dryRun === true,
    json: raw.json === true,
    batchSize,
    topicPrefix,
  };
}

/** A commit position (`42`, as the embedded store numbers events) or `commit/prepare` (`42/42`). */
export function parsePositionOption(flag: string, text: string, problems: string[]): GlobalPosition | undefined {
  const bare = /^\d+$/.exec(text);
  if (bare) return { commit: BigInt(text), prepare: BigInt(text) };
  const pair = /^(\d+)\/(\d+)$/.exec(text);
  if (pair) return { commit: BigInt(pair[1]), prepare: BigInt(pair[2]) };
  problems.push(`${flag} must be a commit position such as 42 (or commit/prepare such as 42/42), got "${text}"`);
  return undefined;
}

const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/**
 * An ISO 8601 date (`2025-01-31`, midnight UTC) or date-time with a zone (`2025-01-31T08:00:00Z`,
 * `…+02:00`). A time without a zone is refused: it would silently mean the machine's local time.
 */
export function parseTimeOption(flag: string, text: string, problems: string[]): Date | undefined {
  const match = ISO_TIME.exec(text);
  const invalid = (): undefined => {
    problems.push(`${flag} must be an ISO 8601 date or date-time with a zone (e.g. 2025-01-31 or 2025-01-31T08:00:00Z), got "${text}"`);
    return undefined;
  };
  if (!match) return invalid();
  const [, year, month, day, hour, minute, second] = match as (string | undefined)[];
  const daysInMonth = new Date(Date.UTC(Number(year), Number(month), 0)).getUTCDate();
  if (Number(month) < 1 || Number(month) > 12 || Number(day) < 1 || Number(day) > daysInMonth) return invalid();
  if (hour !== undefined && (Number(hour) > 23 || Number(minute) > 59 || Number(second ?? 0) > 59)) return invalid();
  const date = new Date(hour === undefined ? `${text}T00:00:00Z` : text);
  return Number.isNaN(date.getTime()) ? invalid() : date;
}
