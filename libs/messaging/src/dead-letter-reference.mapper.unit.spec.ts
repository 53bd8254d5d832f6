import type { KafkaMessage } from 'kafkajs';
import { DEAD_LETTER_ERROR_MAX_CHARS, deadLetterOf } from './dead-letter-reference.mapper';
import type { DeadLetterReference } from './kafka-topics.contract';
import { parkRecordOfMessage } from './park-record.mapper';

const at = new Date('2026-01-15T09:31:02.417Z');
const location = { topic: 'webhooks.events.v1', partition: 2 };

function parked(message: { readonly key?: Buffer; readonly value?: Buffer }, error = 'bad') {
  const full: KafkaMessage = {
    key: message.key ?? null,
    value: message.value ?? null,
    headers: {},
    offset: '7',
    timestamp: '0',
    attributes: 0,
  };
  const failure = { disposition: 'park', code: 'undecodable', message: error } as const;
  const letter = deadLetterOf(location, full, failure, parkRecordOfMessage(location, full, failure), at);
  return { ...letter, reference: JSON.parse(letter.value) as DeadLetterReference };
}

describe('dead-letter references', () => {
  it('given a message without a value or headers, when parked, then the reference names where it was, with no digest', () => {
    const { key, reference, headers } = parked({});
    expect(key).toBeNull();
    expect(reference).toEqual({
      reference_version: 1,
      original_topic: 'webhooks.events.v1',
      original_partition: 2,
      original_offset: '7',
      key: null,
      event_id: null,
      event_type: null,
      stream_id: null,
      delivery_id: null,
      routine_id: null,
      value_bytes: 0,
      value_sha256: null,
      error_code: 'undecodable',
      error: 'bad',
      parked_at: '2026-01-15T09:31:02.417Z',
    });
    expect(headers).toEqual({
      error: 'bad',
      'error-code': 'undecodable',
      'original-topic': 'webhooks.events.v1',
      'original-partition': '2',
      'original-offset': '7',
    });
  });

  it('given ids in the value that are not ids of their kind, when parked, then the reference leaves them out', () => {
    const value = Buffer.from(JSON.stringify({ deliveryId: 'someone@example.com', routineId: 'rtn_Vw3hQm1pTgK2aYc9XbR0sA' }));
    const { reference } = parked({ key: Buffer.from('whk_3q2-7wT6kT1V4nq8YyZx0A'), value });
    expect(reference).toMatchObject({ key: 'whk_3q2-7wT6kT1V4nq8YyZx0A', delivery_id: null, routine_id: 'rtn_Vw3hQm1pTgK2aYc9XbR0sA' });
    expect(reference.value_bytes).toBe(value.length);
  });

  it('given a very long error, when parked, then its text is cut to the limit in the value and the header', () => {
    const { reference, headers } = parked({}, 'x'.repeat(DEAD_LETTER_ERROR_MAX_CHARS + 50));
    expect(reference.error).toBe(`${'x'.repeat(DEAD_LETTER_ERROR_MAX_CHARS)}…`);
    expect(headers['error']).toBe(reference.error);
  });
});
