/**
 * A service spawned by a supervisor (npm start's launcher, a test) stops when the supervisor is
 * gone, however it ended (kill -9 included): once this process has been re-parented, it sends
 * itself SIGTERM, which runs the usual graceful shutdown, and exits anyway after `graceMs` (a
 * shutdown waiting on a server that went away with the supervisor must not keep it alive). The
 * check is one getppid() a second.
 */
export function stopWhenSupervisorGone(supervisorPid: number | undefined, intervalMs = 1000, graceMs = 10_000): void {
  if (supervisorPid === undefined) return;
  const check = (): void => {
    if (process.ppid === supervisorPid) return;
    clearInterval(timer);
    process.stderr.write(`supervisor (pid ${supervisorPid}) is gone: shutting down\n`);
    setTimeout(() => {
      process.stderr.write(`shutdown did not finish within ${graceMs} ms: exiting\n`);
      process.exit(1);
    }, graceMs).unref();
    process.kill(process.pid, 'SIGTERM');
  };
  const timer = setInterval(check, intervalMs);
  timer.unref();
  check();
}
