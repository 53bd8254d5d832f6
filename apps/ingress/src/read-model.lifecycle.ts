import type { OnApplicationShutdown } from '@nestjs/common';
import type { BatchedActivityRecorder } from '@wts/application';
import type { ReadModelStore } from '@wts/read-models';

/**
 * On shutdown: recorded activity is written, then the read-model database closes. (The read
 * models are projected by the run-dispatcher: the ingress only lists them.)
 */
export class ReadModelLifecycle implements OnApplicationShutdown {
  constructor(
    private readonly recorder: BatchedActivityRecorder,
    private readonly readModels: ReadModelStore,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.recorder.stop().catch(() => undefined);
    await this.readModels.close();
  }
}
