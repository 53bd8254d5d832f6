import { ParkDispatchUseCase, systemClock } from '@wts/application';
import { createHash, randomUUID } from 'node:crypto';
import { useConsumerTestBed } from '../../../test/support/consumer-test.harness';
import { appendDeliveries, type CollectedMessage } from '../../../test/support/kafka-test-kit';
import { encodeEvent } from './kafka-message.codec';
import { DeliveryAcceptedMessage, routeEvent, type DeadLetterReference } from './kafka-topics.contract';

/**
 * The dead-letter topic is kept forever, so it carries references, never a payload (DESIGN "Data
 * lifecycle" → Kafka): poison messages whose value, key and extra headers hold a marker are parked,
 * and nothing the broker holds on the dead-letter topic contains it, while each record still names
 * the original message (topic, partition, offset, event id) and the store keeps the park.
 */
describe('dead-letter parking (real broker)', () => {
  const currentBed = useConsumerTestBed('dead-letter');

  it('parks poison messages carrying a marker in value, key and headers: no dead-letter record holds it, each names the original', async () => {
    const bed = currentBed();
    const { store, topics, producer, hook } = bed;
    const marker = `PII-MARKER-${randomUUID()}`;
    const [undecodable, failing] = await appendDeliveries(store, hook, 2);
    /** A delivery as the relay sends it, with the marker in its payload (third-party data) and any headers added. */
    const withMarker = (event: typeof undecodable.event, extraHeaders: Record<string, string>) => {
      const data = { ...(event.data as DeliveryAcceptedMessage.Value), payload: { format: 'text', text: `email ${marker}@example.com` } };
      const encoded = encodeEvent({ ...event, data }, routeEvent(event) ?? { topic: 'webhookEvents', key: hook.webhookId });
      return { key: encoded.key, value: encoded.value, headers: { ...encoded.headers, ...extraHeaders } as Record<string, string> };
    };
    // Offset 0: undecodable (no runId), with a foreign header holding the marker.
    const first = withMarker(undecodable.event, { 'x-customer-email': `${marker}@example.com` });
    const noRunId = { ...(JSON.parse(first.value) as Record<string, unknown>), runId: undefined };
    const offset0 = { ...first, value: JSON.stringify(noRunId) };
    // Offset 1: not JSON at all, the marker in its key and in a reference header that is not an identifier.
    const offset1 = {
      key: `${marker} <${marker}@example.com>`,
      value: `{"payload": "${marker}`,
      headers: { 'event-type': 'DeliveryAccepted', 'schema-version': '1', 'event-id': randomUUID(), 'stream-id': `delivery ${marker}` },
    };
    // Offset 2: a valid message whose handler keeps failing: parked after its attempts.
    const offset2 = withMarker(failing.event, { 'x-debug': marker });
    await producer.send({ topic: topics.webhookEvents, acks: -1, messages: [offset0, offset1, offset2] });

    await bed
      .consumer(
        async () => {
          throw new Error('a bug that retrying will not fix');
        },
        { attemptsBeforeParking: 2 },
        { recordPark: (record) => new ParkDispatchUseCase(store, systemClock).execute(record) },
      )
      .start();
    await bed.waitForCommitted(3, 30_000, 'all 3 offsets committed (each parked and acknowledged)');
    const dlq = await bed.waitForDeadLetters(3, '3 dead letters');

    // Nothing of the payload anywhere in what the broker keeps forever: value, key, header names and values.
    const everything = (message: CollectedMessage): string =>
      [message.key ?? '', message.value?.toString('utf8') ?? '', ...Object.entries(message.headers).flat()].join('\n');
    for (const message of dlq.messages) {
      expect(everything(message).toLowerCase()).not.toContain(marker.toLowerCase());
      expect(everything(message)).not.toContain('example.com');
    }

    const references = new Map(
      dlq.messages.map((message) => {
        const reference = JSON.parse(message.value?.toString('utf8') ?? 'null') as DeadLetterReference;
        return [reference.original_offset, { message, reference }];
      }),
    );
    const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
    const expected = (offset: string, value: string, fields: Partial<DeadLetterReference>) =>
      expect(references.get(offset)?.reference).toEqual({
        reference_version: 1,
        original_topic: topics.webhookEvents,
        original_partition: 0,
        original_offset: offset,
        value_bytes: Buffer.byteLength(value),
        value_sha256: sha256(value),
        error: expect.any(String),
        parked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        ...fields,
      });
    const ids = (delivery: typeof undecodable) => ({
      key: hook.webhookId,
      event_id: delivery.event.id,
      event_type: 'DeliveryAccepted',
      stream_id: `delivery-${delivery.deliveryId}`,
      delivery_id: delivery.deliveryId,
      routine_id: hook.routineId,
    });
    expected('0', offset0.value, { ...ids(undecodable), error_code: 'undecodable' });
    expected('1', offset1.value, {
      key: null,
      event_id: offset1.headers['event-id'],
      event_type: 'DeliveryAccepted',
      stream_id: null,
      delivery_id: null,
      routine_id: null,
      error_code: 'undecodable',
    });
    expected('2', offset2.value, { ...ids(failing), error_code: 'handler_failed' });
    expect(references.get('2')?.reference.error).toMatch(/retrying will not fix/);

    // Only the identifying headers and the reason are kept: not a foreign header, nor the original's
    // CloudEvents attributes (a dead letter is a reference to the event, not the event).
    const cloudEventsHeader = (name: string): boolean => name.startsWith('ce_') || name === 'content-type';
    expect(Object.keys(offset0.headers).filter(cloudEventsHeader)).toHaveLength(7);
    expect(references.get('0')?.message.headers).toEqual({
      ...Object.fromEntries(Object.entries(offset0.headers).filter(([name]) => !name.startsWith('x-') && !cloudEventsHeader(name))),
      error: references.get('0')?.reference.error,
      'error-code': 'undecodable',
      'original-topic': topics.webhookEvents,
      'original-partition': '0',
      'original-offset': '0',
    });
    expect(references.get('1')?.message.key).toBeNull();
    expect(Object.keys(references.get('2')?.message.headers ?? {})).not.toContain('x-debug');

    // The store keeps the operator's record, found from the reference; the delivery is there to re-dispatch.
    for (const offset of ['0', '2']) {
      const reference = references.get(offset)?.reference;
      const [parked] = await store.readStream(`parked-${reference?.event_id}`);
      expect(parked?.data).toMatchObject({ sourceEventId: reference?.event_id, deliveryId: reference?.delivery_id });
      const [accepted] = await store.readStream(reference?.stream_id ?? '');
      expect(accepted?.id).toBe(reference?.event_id);
    }
  }, 60_000);
});
