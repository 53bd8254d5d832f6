import { JobLifecycle, type ServiceThread } from '@wts/platform';

/**
 * The run relay's thread starts once the service is up (it never waits for Kafka); on shutdown it
 * finishes its batch in flight and checkpoints it, then leaves the leadership group.
 */
export class RunRelayLifecycle extends JobLifecycle {
  constructor(thread: ServiceThread<unknown, unknown>) {
    super(thread, 'once up');
  }
}
