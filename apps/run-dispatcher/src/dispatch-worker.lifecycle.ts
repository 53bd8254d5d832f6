import type { StoreDispatchWorker } from '@wts/application';
import { JobLifecycle } from '@wts/platform';

/** Starts following accepted deliveries once up; on shutdown stops and checkpoints (the store closes after: EventStoreModule). */
export class DispatchWorkerLifecycle extends JobLifecycle {
  constructor(worker: StoreDispatchWorker) {
    super(worker, 'once up');
  }
}
