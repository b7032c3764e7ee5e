// The collector of the traced gateway target: an OTLP/HTTP receiver that decodes each export
// (protobuf, as the gateway sends by default; the tests' decoder) and throws the spans away, so
// that what the traced gateway pays is its own tracing, not a slow collector. GET /stats says how
// many spans came, for the bench to check that the gateway did trace.
// Runs in its own process (bench/processes.ts starts it) and prints `listening URL` on stderr.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJsonTraces, decodeProtobufTraces } from '../test/support/otlp-decode.js';

let requests = 0;
let spans = 0;

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ requests, spans }));
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const json = req.headers['content-type']?.startsWith('application/json') === true;
    try {
      spans += (json ? decodeJsonTraces(body.toString('utf8')) : decodeProtobufTraces(body)).length;
      requests += 1;
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : undefined);
    } catch (error) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
    }
  });
});

server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces\n`);
});
// Taken down with the bench, whose stdin pipe closes when it dies.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
