/**
 * A service spawned by a supervisor (npm start's launcher, a test) stops when the supervisor is
 * gone, however it ended (kill -9 included): once this process has been re-parented, it sends
 * itself SIGTERM, which runs the usual graceful shutdown. The check is one getppid() a second.
 */
export function stopWhenSupervisorGone(supervisorPid: number | undefined, intervalMs = 1000): void {
  if (supervisorPid === undefined) return;
  const check = (): void => {
    if (process.ppid === supervisorPid) return;
    clearInterval(timer);
    process.stderr.write(`supervisor (pid ${supervisorPid}) is gone: shutting down\n`);
    process.kill(process.pid, 'SIGTERM');
  };
  const timer = setInterval(check, intervalMs);
  timer.unref();
  check();
}
