import { ConfigurationError, loadConfig } from '@wts/config';
import { prepareEventStore, resolveLogFormat, secureDataDirectory } from '@wts/platform';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ChildProcessSupervisor, DEFAULT_SUPERVISOR_OPTIONS, type ServiceAddress } from './child-process.supervisor';
import { anyFreePort, firstUnavailablePort } from './port.probe';
import { banner } from './launch-banner.format';
import { waitUntilReady } from './readiness.wait';

/** How long the services have to become ready before the start is called failed. */
const READY_WITHIN_MS = 60_000;

class LaunchFailed extends Error {}

/**
 * `npm start`: both services as separate processes on the embedded default (SQLite store under
 * DATA_DIR, in-memory rate limits), with an admin token generated unless ADMIN_TOKEN is set. It
 * starts nothing it cannot own: a taken port stops it before anything runs, and the banner (with
 * the token) is printed only once the services it started — not whatever answers on their
 * ports — are ready.
 */
async function main(): Promise<void> {
  // PORT=0: a free port, chosen here so that the webhook URLs and the banner name the real one.
  const chosen = loadConfig(process.env);
  const environment = chosen.http.port === 0 ? { ...process.env, PORT: String(await anyFreePort(chosen.http.host)) } : process.env;
  const config = loadConfig(environment);
  const taken = await firstUnavailablePort(config.http.host, [
    { port: config.http.port, variable: 'PORT' },
    { port: config.http.dispatcherPort, variable: 'DISPATCHER_PORT' },
    ...(config.http.opsPort === undefined ? [] : [{ port: config.http.opsPort, variable: 'OPS_PORT' }]),
  ]);
  if (taken) throw new LaunchFailed(taken);
  // ADMIN_TOKEN=off: no bootstrap token at all (people sign in through OIDC_ISSUER).
  const disabled = config.http.bootstrapTokenDisabled;
  const generated = config.http.adminToken === undefined && !disabled;
  const adminToken = disabled ? 'off' : (config.http.adminToken ?? randomBytes(24).toString('base64url'));
  // DATA_DIR owner-only (0700, files 0600) before anything is written there; a looser one is tightened and said.
  secureDataDirectory(config, (message) => process.stderr.write(`[launcher] warning: ${message}\n`));
  // The store's schema is created here, once, before the two services open it.
  await prepareEventStore(config);
  const env = {
    ...environment,
    ADMIN_TOKEN: adminToken,
    DATA_DIR: config.storage.dataDir,
    // The services' stdout is a pipe to this process: they log for the terminal this one writes to.
    LOG_FORMAT: resolveLogFormat(config.log.format),
    SUPERVISOR_PID: String(process.pid),
  };
  let failed: (reason: string) => void = () => undefined;
  const gaveUp = new Promise<never>((_, reject) => (failed = (reason) => reject(new LaunchFailed(reason))));
  const supervisor = new ChildProcessSupervisor({ ...DEFAULT_SUPERVISOR_OPTIONS, onGiveUp: (reason) => failed(reason) });
  const dist = join(__dirname, '..', '..');
  supervisor.start({ name: 'ingress', script: join(dist, 'ingress', 'src', 'main.js'), env });
  supervisor.start({ name: 'run-dispatcher', script: join(dist, 'run-dispatcher', 'src', 'main.js'), env });

  const stopAndExit = (code: number): void => {
    void supervisor.stop().then(() => process.exit(code));
  };
  process.once('SIGINT', () => stopAndExit(0));
  process.once('SIGTERM', () => stopAndExit(0));

  try {
    const [ingress, dispatcher] = await Promise.race([gaveUp, started(supervisor)]);
    // A generated token is printed (the only way to learn it); one the operator chose is not.
    const shownToken = disabled ? undefined : generated ? adminToken : '<your ADMIN_TOKEN>';
    process.stdout.write(banner({ config, adminToken: shownToken, ingress, dispatcher }));
  } catch (error) {
    await supervisor.stop();
    throw error;
  }
  // Later, a service that can no longer be kept running ends the launcher too (non-zero).
  gaveUp.catch((error: unknown) => {
    process.stderr.write(`[launcher] ${error instanceof Error ? error.message : String(error)}\n`);
    stopAndExit(1);
  });
}

/** Both services listening (as each process reported) and ready at those addresses, within the deadline. */
async function started(supervisor: ChildProcessSupervisor): Promise<[ServiceAddress, ServiceAddress]> {
  const deadline = Date.now() + READY_WITHIN_MS;
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(
      () => reject(new LaunchFailed(`the services did not become ready within ${READY_WITHIN_MS / 1000} s; their log lines above say why`)),
      READY_WITHIN_MS,
    ).unref(),
  );
  const ready = async (name: string): Promise<ServiceAddress> => {
    const address = await supervisor.whenListening(name);
    await waitUntilReady(new URL('/health/ready', address.opsUrl), deadline, () => supervisor.isRunning(name));
    return address;
  };
  return Promise.race([timeout, Promise.all([ready('ingress'), ready('run-dispatcher')])]);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigurationError) process.stderr.write(`${error.message}\n`);
  else if (error instanceof LaunchFailed) process.stderr.write(`[launcher] not started: ${error.message}\n`);
  else process.stderr.write(`launcher failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
