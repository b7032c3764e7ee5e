// A TCP proxy in front of a server that a test can take down and bring back on the same address:
// down() drops every connection and refuses new ones (as a crashed or unreachable server would
// look to a client), up() lets them through again. retarget() sends new connections to another
// server on the same address (a failover behind a Service), leaving those open where they are.
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  /** The target URL with the proxy's host and port in place of the server's. */
  readonly url: string;
  down(): void;
  up(): void;
  /** New connections go to this server's URL from now on; open ones stay with the old server. */
  retarget(targetUrl: string): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetUrl: string): Promise<TcpProxy> {
  let target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  let isDown = false;
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const server = createServer((client) => {
    if (isDown) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(target.port), target.hostname);
    track(client);
    track(upstream);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const url = new URL(targetUrl);
  url.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: url.href,
    down() {
      isDown = true;
      for (const socket of sockets) socket.destroy();
    },
    up() {
      isDown = false;
    },
    retarget(url: string) {
      target = new URL(url);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
