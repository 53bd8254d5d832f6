import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/**
 * A TCP relay in front of the real PostgreSQL, so that tests can make the server go away
 * (`stop`: connections cut, port closed) or stop answering (`freeze`: bytes are swallowed)
 * without touching the shared server itself.
 */
export interface TcpProxy {
  readonly port: number;
  freeze(): void;
  stop(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let frozen = false;
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((downstream) => {
    const upstream = connect(target.port, target.host);
    track(downstream);
    track(upstream);
    downstream.on('data', (chunk) => frozen || upstream.write(chunk));
    upstream.on('data', (chunk) => frozen || downstream.write(chunk));
    downstream.on('close', () => upstream.destroy());
    upstream.on('close', () => downstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    freeze: () => {
      frozen = true;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Accepts connections and never says a word: a server that hangs during the handshake. */
export async function startSilentServer(): Promise<{ port: number; stop: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
