/** What a service listens with: the Nest app's listen and the address it got. */
export interface Listenable {
  listen(options: { port: number; host: string }): Promise<unknown>;
  getUrl(): Promise<string>;
}

export interface ListenTarget {
  readonly service: string;
  readonly port: number;
  readonly host: string;
  /** The environment variable that chose the port, named in the message when it is taken. */
  readonly portVariable: string;
}

/** A service that cannot listen (the port is taken, the address not this machine's) exits with this: no restart can help. */
export const EXIT_CANNOT_LISTEN = 78;

/** The messages a service sends to the launcher that spawned it (over the IPC channel npm start opens). */
export type LaunchReport =
  | {
      readonly type: 'wts:listening';
      readonly service: string;
      readonly pid: number;
      readonly port: number;
      readonly url: string;
      /** Where its health and metrics are served, when not at `url` (the ingress's OPS_PORT). */
      readonly opsUrl?: string;
    }
  | { readonly type: 'wts:fatal'; readonly service: string; readonly pid: number; readonly reason: string };

const LISTEN_ERRORS: Readonly<Record<string, (target: ListenTarget) => string>> = {
  EADDRINUSE: (t) =>
    `port ${t.port} (${t.portVariable}) is already in use on ${t.host}: another process listens there; set ${t.portVariable} to a free port`,
  EACCES: (t) =>
    `port ${t.port} (${t.portVariable}) on ${t.host} needs privileges this process does not have; set ${t.portVariable} to a port above 1023`,
  EADDRNOTAVAIL: (t) => `HOST ${t.host} is not an address of this machine; set HOST to one of its addresses (127.0.0.1, 0.0.0.0)`,
  ENOTFOUND: (t) => `HOST ${t.host} does not resolve; set HOST to an address of this machine (127.0.0.1, 0.0.0.0)`,
};

/**
 * Listens, and tells the launcher (when one spawned this process with an IPC channel) where —
 * from this very process, so the launcher never mistakes another program on that port for its
 * service. A port that is taken or an address that is not this machine's ends the process with
 * one line saying what to change and EXIT_CANNOT_LISTEN (the launcher does not restart it).
 */
export interface ListenOptions {
  /** false: listen without telling the launcher (a second listener; the main one reports). */
  readonly report?: boolean;
  /** Where this service's health and metrics are, when another listener serves them. */
  readonly opsUrl?: URL | undefined;
}

export async function listenOrExit(app: Listenable, target: ListenTarget, options: ListenOptions = {}): Promise<URL> {
  try {
    await app.listen({ port: target.port, host: target.host });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    const explain = code === undefined ? undefined : LISTEN_ERRORS[code];
    if (!explain) throw error;
    const reason = explain(target);
    process.stderr.write(`${target.service} cannot start: ${reason}\n`);
    await report({ type: 'wts:fatal', service: target.service, pid: process.pid, reason });
    process.exit(EXIT_CANNOT_LISTEN);
  }
  const url = new URL(await app.getUrl());
  if (options.report === false) return url;
  const ops = options.opsUrl ? { opsUrl: options.opsUrl.origin } : {};
  await report({ type: 'wts:listening', service: target.service, pid: process.pid, port: Number(url.port), url: url.origin, ...ops });
  return url;
}

/** Sent and flushed (or given up after a second: a launcher that went away is not waited for). */
async function report(message: LaunchReport): Promise<void> {
  const send = process.send?.bind(process);
  if (send === undefined || !process.connected) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 1000);
    send(message, undefined, {}, () => {
      clearTimeout(timer);
      resolve();
    });
  });
  // The channel must never keep a service alive: its lifetime follows SUPERVISOR_PID and signals.
  process.channel?.unref();
}
