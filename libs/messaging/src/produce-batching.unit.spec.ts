import { KafkaJSNonRetriableError, KafkaJSProtocolError } from 'kafkajs';
import { RELAY_PRODUCER_TIMING, RELAY_SEND_BUDGET_MS } from './event-relay.tuning';
import { chunkBySize, isMessageTooLarge, messageBytes } from './produce-batching';
import { DEFAULT_LEADERSHIP_TUNING } from './relay-leadership.elector';

describe('produce request sizing', () => {
  it('counts key, value, header names and values, plus a per-record allowance', () => {
    const small = messageBytes({ key: 'k', value: 'v' });
    expect(messageBytes({ key: 'k', value: 'v'.repeat(1001) })).toBe(small + 1000);
    expect(messageBytes({ key: 'k', value: 'é' })).toBe(small + 1); // UTF-8 bytes, not characters
    expect(messageBytes({ key: 'k', value: 'v', headers: { 'event-id': 'abc' } })).toBeGreaterThanOrEqual(small + 'event-id'.length + 3);
    expect(messageBytes({ key: null, value: Buffer.alloc(10) })).toBe(messageBytes({ key: null, value: null }) + 10);
  });

  it('chunks in order by bytes and count, always at least one item per chunk', () => {
    const size = (n: number): number => n;
    expect(chunkBySize([4, 4, 4, 4], size, 10)).toEqual([
      [4, 4],
      [4, 4],
    ]);
    expect(chunkBySize([1, 1, 1, 1, 1], size, 100, 2)).toEqual([[1, 1], [1, 1], [1]]);
    // A single item above the cap goes alone; nothing is dropped or reordered.
    expect(chunkBySize([3, 50, 3, 3], size, 10)).toEqual([[3], [50], [3, 3]]);
    expect(chunkBySize([], size, 10)).toEqual([]);
  });

  /** As kafkajs builds them from a broker error code (its typings only admit a message). */
  function protocolError(type: string, code: number, retriable: boolean): KafkaJSProtocolError {
    return new KafkaJSProtocolError({ type, code, retriable, message: `${type} from the broker` } as unknown as Error);
  }

  it("recognises the broker's size refusals however kafkajs wraps them, and nothing else", () => {
    const tooLarge = protocolError('MESSAGE_TOO_LARGE', 10, false);
    const listTooLarge = protocolError('RECORD_LIST_TOO_LARGE', 18, false);
    const notLeader = protocolError('NOT_LEADER_FOR_PARTITION', 6, true);
    expect(tooLarge.type).toBe('MESSAGE_TOO_LARGE');
    expect(isMessageTooLarge(tooLarge)).toBe(true);
    expect(isMessageTooLarge(listTooLarge)).toBe(true);
    // kafkajs' retrier wraps what it gives up on, with the broker's error as the cause.
    const wrapped = new KafkaJSNonRetriableError(new Error('gave up'));
    Object.assign(wrapped, { cause: tooLarge });
    expect(isMessageTooLarge(wrapped)).toBe(true);
    expect(isMessageTooLarge({ errors: [notLeader, tooLarge] })).toBe(true);
    expect(isMessageTooLarge(notLeader)).toBe(false);
    expect(isMessageTooLarge(new Error('MESSAGE_TOO_LARGE'))).toBe(false);
    expect(isMessageTooLarge(undefined)).toBe(false);
  });
});

describe('relay producer timing', () => {
  it('one send, kafkajs retries included, ends well within a leadership session', () => {
    expect(RELAY_PRODUCER_TIMING.retry.retries).toBeGreaterThanOrEqual(1); // kafkajs: idempotent needs one
    expect(RELAY_PRODUCER_TIMING.ackTimeoutMs).toBeLessThan(RELAY_PRODUCER_TIMING.requestTimeoutMs);
    // The relay starts a send only while the lease has longer than this to run, and heartbeats
    // keep the lease near a full session: this leaves room for two heartbeat intervals.
    expect(RELAY_SEND_BUDGET_MS + 2 * DEFAULT_LEADERSHIP_TUNING.heartbeatIntervalMs).toBeLessThan(
      DEFAULT_LEADERSHIP_TUNING.sessionTimeoutMs,
    );
    expect(RELAY_SEND_BUDGET_MS).toBe(3200);
  });
});
