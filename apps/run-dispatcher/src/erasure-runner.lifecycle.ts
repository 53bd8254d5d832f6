import type { ErasureRunner, ErasureRunnerReport } from '@wts/application';
import { PeriodicTaskLifecycle } from '@wts/platform';

/** How often a dispatcher looks for erasures to run: an erasure asked for through the API starts within this. */
export const ERASURE_RUNNER_MS = 2_000;

/**
 * Runs erasures asked for (POST /admin/erasures, or a command line that stopped before the end) to
 * their end, on every dispatcher: each window is recorded at the erasure stream's revision, so
 * replicas running the same erasure never both advance it. Shutdown ends the erasure in flight
 * after its current window; the next start goes on from it.
 */
export class ErasureRunnerLifecycle extends PeriodicTaskLifecycle<ErasureRunnerReport> {
  constructor(
    private readonly runner: Pick<ErasureRunner, 'runPending' | 'stop'>,
    everyMs = ERASURE_RUNNER_MS,
  ) {
    super({
      name: 'ErasureRunner',
      everyMs,
      run: () => runner.runPending(),
      describe: ({ finished, unfinished, errors }) =>
        finished.length > 0 || errors.length > 0
          ? {
              fields: {
                finished: finished.map((state) => ({
                  erasureId: state.erasureId,
                  status: state.finished?.status,
                  erased: state.erased,
                  error: state.finished?.error,
                })),
                unfinished,
                errors,
              },
              message: errors.length > 0 ? 'erasures could not go on; trying again' : 'erasures finished',
            }
          : undefined,
      failure: 'erasures could not be looked for; trying again',
    });
  }

  override async onApplicationShutdown(): Promise<void> {
    this.runner.stop();
    await super.onApplicationShutdown();
  }
}
