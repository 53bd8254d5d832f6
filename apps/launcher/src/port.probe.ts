import { createServer } from 'node:net';

export interface RequiredPort {
  readonly port: number;
  /** The variable that chose it, named in the message. */
  readonly variable: string;
}

/**
 * Why the first of these ports cannot be listened on at `host` (taken by another process, or
 * needing privileges), or undefined when each is free. Port 0 (any free port) always is. The
 * services check again when they listen (a port taken in between still stops the start).
 */
export async function firstUnavailablePort(host: string, ports: readonly RequiredPort[]): Promise<string | undefined> {
  for (const { port, variable } of ports) {
    if (port === 0) continue;
    const code = await tryListen(host, port);
    if (code === 'EADDRINUSE')
      return `port ${port} (${variable}) is already in use on ${host}: another process listens there; set ${variable} to a free port, e.g. ${variable}=${port + 100} npm start`;
    if (code === 'EACCES')
      return `port ${port} (${variable}) on ${host} needs privileges this process does not have; set ${variable} to a port above 1023`;
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      return `HOST ${host} is not an address of this machine; set HOST to one of its addresses (127.0.0.1, 0.0.0.0)`;
    if (code !== undefined) return `port ${port} (${variable}) on ${host} cannot be listened on (${code})`;
  }
  return undefined;
}

function tryListen(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'unknown error'));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/** A port free at `host` right now (the service that takes it still reports if it lost a race). */
export function anyFreePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ port: 0, host, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
