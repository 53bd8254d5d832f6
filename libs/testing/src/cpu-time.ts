/**
 * The CPU time `call` takes, in milliseconds of this process's user and system time: what a bound
 * on a computation's own cost should compare. Wall time also counts the moments another process
 * held the core — on a shared or parallel test run that is most of it — so a wall-time bound fails
 * for the machine's load, not for the code. Only for synchronous work: time spent waiting on I/O
 * is not CPU time.
 */
export function cpuTimed<T>(call: () => T): { readonly ms: number; readonly result: T } {
  const started = process.cpuUsage();
  const result = call();
  const { user, system } = process.cpuUsage(started);
  return { ms: (user + system) / 1000, result };
}
