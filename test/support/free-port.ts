// A TCP port on 127.0.0.1 that nothing listened on a moment ago: for a redis-server of our own, and
// for "Redis is down" tests that need an address where nothing answers.
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}
