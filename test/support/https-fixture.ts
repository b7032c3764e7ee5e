// A small HTTPS server on 127.0.0.1 serving JSON documents by path: client ID metadata documents
// must be fetched over HTTPS. Its certificate is self-signed, made at test time by the openssl CLI
// (SAN IP:127.0.0.1); a process that should trust it gets NODE_EXTRA_CA_CERTS=<caFile> (a child:
// Node reads that variable only at start), this process can pass `ca` to undici or https.
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const OPENSSL = '/usr/bin/openssl';

export interface HttpsFixture {
  /** `https://127.0.0.1:<port>` */
  readonly origin: string;
  /** The URL of a path on it, e.g. `urlFor('/client.json')`. */
  urlFor(path: string): string;
  /** The certificate (self-signed, so also its own CA), PEM, and the file it is in. */
  readonly ca: string;
  readonly caFile: string;
  /** Serves `body` as JSON at `path` from now on (replacing what was there); `headers` are added. */
  set(path: string, body: unknown, headers?: Readonly<Record<string, string>>): void;
  /** The paths requested so far, in order (to see whether a document was fetched again or cached). */
  readonly requests: readonly string[];
  stop(): Promise<void>;
}

interface Served {
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

export async function startHttpsFixture(documents: Readonly<Record<string, unknown>> = {}): Promise<HttpsFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'switchboard-https-fixture-'));
  const keyFile = join(dir, 'key.pem');
  const caFile = join(dir, 'cert.pem');
  await promisify(execFile)(OPENSSL, [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
    '-keyout', keyFile, '-out', caFile, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
  ]).catch((error: unknown) => {
    throw new Error(`the HTTPS fixture needs ${OPENSSL} (apt-get install openssl) to make its certificate`, { cause: error });
  });
  const [key, ca] = await Promise.all([readFile(keyFile, 'utf8'), readFile(caFile, 'utf8')]);

  const served = new Map<string, Served>();
  const set = (path: string, body: unknown, headers: Readonly<Record<string, string>> = {}) => served.set(path, { body: JSON.stringify(body), headers });
  for (const [path, body] of Object.entries(documents)) set(path, body);
  const requests: string[] = [];

  const server: Server = createServer({ key, cert: ca }, (request, response) => {
    const path = new URL(request.url ?? '/', 'https://fixture').pathname;
    requests.push(path);
    const document = served.get(path);
    if (document === undefined || request.method !== 'GET') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json', ...document.headers }).end(document.body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    urlFor: (path) => new URL(path, origin).href,
    ca,
    caFile,
    set,
    requests,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
