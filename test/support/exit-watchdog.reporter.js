/* global setTimeout */
/**
 * A jest reporter that turns "jest never exits" into a failed run. After the last test, a socket,
 * server or timer left open keeps the process alive for good (and CI with it); `--forceExit` would
 * hide it as a pass. This waits `WTS_TEST_EXIT_GRACE_MS` (default 60 s: the Kafka globalTeardown runs after it) — the timer is unref'd, so
 * a clean run exits at once and never sees it — then names the problem and exits with status 1.
 * `npx jest --detectOpenHandles <file>` shows which handle it was.
 */
class ExitWatchdogReporter {
  onRunComplete() {
    const graceMs = Number(process.env.WTS_TEST_EXIT_GRACE_MS ?? 60_000);
    const timer = setTimeout(() => {
      process.stderr.write(
        `\n[exit-watchdog] jest did not exit within ${graceMs} ms after the last test: an open handle (socket, server, timer, child process) ` +
          'keeps it alive. Failing the run instead of hanging it; run the suite alone with --detectOpenHandles to name the handle.\n',
      );
      process.exit(1);
    }, graceMs);
    timer.unref();
  }
}

module.exports = ExitWatchdogReporter;
