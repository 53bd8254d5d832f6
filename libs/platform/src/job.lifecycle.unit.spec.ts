import { JobLifecycle, type JobStart } from './job.lifecycle';

function recordingJob(log: string[]) {
  return {
    start: async () => void log.push('start'),
    stop: async () => void log.push('stop'),
  };
}

describe('JobLifecycle: one job started at its hook, stopped on shutdown', () => {
  it.each<[JobStart, string[], string[]]>([
    ['before serving', ['start'], ['start']],
    ['once up', [], ['start']],
  ])('starts a job "%s": after module init %j, after bootstrap %j, once only', async (startAt, afterInit, afterBootstrap) => {
    const log: string[] = [];
    const lifecycle = new JobLifecycle(recordingJob(log), startAt);

    await lifecycle.onModuleInit();
    expect(log).toEqual(afterInit);
    await lifecycle.onApplicationBootstrap();
    expect(log).toEqual(afterBootstrap);
    await lifecycle.onApplicationShutdown();
    expect(log).toEqual([...afterBootstrap, 'stop']);
  });
});
