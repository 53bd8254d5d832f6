import { JobLifecycle } from '../job.lifecycle';
import type { RelayThread } from './relay-thread.factory';

/**
 * A relay's thread starts once the service is up (it never waits for Kafka); on shutdown its batch
 * in flight is acknowledged and checkpointed, then it leaves the leadership group.
 */
export class RelayThreadLifecycle extends JobLifecycle {
  constructor(thread: RelayThread) {
    super(thread, 'once up');
  }
}
