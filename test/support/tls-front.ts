// A TLS-terminating front for a local port, like an ingress: HTTPS on a port of its own, with a
// self-signed certificate for a made-up host name (made at test time by the openssl CLI), passing
// the decrypted bytes to the port behind. A browser reaches the name with
// --host-resolver-rules and ignoreHTTPSErrors; this process cannot resolve it at all.
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:tls';
import { promisify } from 'node:util';

const OPENSSL = '/usr/bin/openssl';

export interface TlsFront {
  readonly port: number;
  stop(): Promise<void>;
}

export async function startTlsFront(hostname: string, backendPort: () => number | undefined): Promise<TlsFront> {
  const dir = await mkdtemp(join(tmpdir(), 'switchboard-tls-front-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  await promisify(execFile)(OPENSSL, [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
    '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', `/CN=${hostname}`, '-addext', `subjectAltName=DNS:${hostname}`,
  ]);
  const [key, cert] = await Promise.all([readFile(keyFile, 'utf8'), readFile(certFile, 'utf8')]);
  await rm(dir, { recursive: true, force: true });
  const sockets = new Set<Socket>();
  const server = createServer({ key, cert }, (socket) => {
    const port = backendPort();
    if (port === undefined) return socket.destroy();
    const backend = connect(port, '127.0.0.1');
    for (const each of [socket, backend]) {
      sockets.add(each);
      each.on('close', () => sockets.delete(each));
      each.on('error', () => socket.destroy());
    }
    socket.pipe(backend).pipe(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
