// An OTLP/HTTP receiver of ours, as a collector would be: POST /v1/traces on 127.0.0.1, protobuf
// or JSON by Content-Type, each request decoded (otlp-decode.ts) and kept, answered 200 with an
// empty ExportTraceServiceResponse. Tests wait for the spans they expect rather than sleeping.
import { EventEmitter } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJsonTraces, decodeProtobufTraces, type ReceivedSpan } from './otlp-decode.js';

export interface ReceivedRequest {
  readonly path: string;
  readonly contentType: string;
  readonly headers: IncomingHttpHeaders;
  readonly spans: readonly ReceivedSpan[];
}

export interface OtlpReceiver {
  /** The traces endpoint, e.g. http://127.0.0.1:43211/v1/traces. */
  readonly url: string;
  /** Every span received so far, in arrival order. */
  readonly spans: ReceivedSpan[];
  readonly requests: ReceivedRequest[];
  /** Resolves with the spans once `done` says they are all there; rejects after `timeoutMs`. */
  waitFor(done: (spans: readonly ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  stop(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: ReceivedRequest[] = [];
  const arrivals = new EventEmitter();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const contentType = request.headers['content-type'] ?? '';
      try {
        const decoded = contentType.startsWith('application/json') ? decodeJsonTraces(body.toString('utf8')) : decodeProtobufTraces(body);
        requests.push({ path: request.url ?? '', contentType, headers: request.headers, spans: decoded });
        spans.push(...decoded);
        response.writeHead(200, { 'content-type': contentType.startsWith('application/json') ? 'application/json' : 'application/x-protobuf' });
        response.end(contentType.startsWith('application/json') ? '{}' : undefined);
        arrivals.emit('spans');
      } catch (error) {
        response.writeHead(400, { 'content-type': 'text/plain' });
        response.end(String(error));
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    spans,
    requests,
    waitFor(done, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (!done(spans)) return;
          clearTimeout(timer);
          arrivals.off('spans', check);
          resolve([...spans]);
        };
        const timer = setTimeout(() => {
          arrivals.off('spans', check);
          reject(new Error(`the spans waited for did not arrive within ${timeoutMs} ms; got: ${spans.map((span) => span.name).join(', ') || 'none'}`));
        }, timeoutMs);
        arrivals.on('spans', check);
        check();
      });
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
