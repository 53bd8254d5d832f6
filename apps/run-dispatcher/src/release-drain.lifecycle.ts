import type { ReleaseDrainWorker } from '@wts/application';
import { JobLifecycle } from '@wts/platform';

/** Follows releases once up (both shapes: it reads the store, the truth); on shutdown stops where it is, checkpointed. */
export class ReleaseDrainLifecycle extends JobLifecycle {
  constructor(worker: ReleaseDrainWorker) {
    super(worker, 'once up');
  }
}
