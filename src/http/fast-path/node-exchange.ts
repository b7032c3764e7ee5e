// One POST to an MCP path as the fast path serves it: the request's head and body read from
// node:http, and its one answer written back: a JSON body, a refusal, or an SSE stream. Whatever
// the answer, the request leaves its access line and counter (RequestRecorder), its span (with
// tracing on), and its place among the requests a draining replica waits for.
//
// Written straight to node:http because that is where the time went: through Hono and
// @hono/node-server, each call paid for a web Request and Response, a middleware chain of
// promises and a Context, and headers copied between web and Node forms, a third of the
// gateway's CPU per call (docs/decisions/0001-node-http-fast-path.md).
import { clientAddressOf } from '../client-address.js';
import type { TrustedProxies } from '../trusted-proxies.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../../auth/principal.js';
import type { Cancellation } from '../../protocol/cancellation.js';
import type { JsonRpcId } from '../../protocol/json-rpc.js';
import { responseGone } from '../client-gone.js';
import type { HttpDrain } from '../drain.js';
import type { RequestRecorder } from '../middleware/observe-requests.js';
import { REQUEST_ID_HEADER } from '../middleware/request-id.js';
import type { HttpRequestTrace } from '../request-trace.js';
import type { Refusal, RequestHead } from '../request-head.js';
import { JSON_HEADERS, type PiecesResponder } from '../responder.js';
import type { JsonPieces } from '../../protocol/json-text.js';

export type BodyRead = { readonly ok: true; readonly bytes: Buffer } | { readonly ok: false; readonly tooLarge: boolean };

export class NodeExchange implements RequestHead {
  readonly method: string;
  readonly path: string;
  principal: Principal | undefined;
  /** CORS headers for an allowed browser origin (middleware/origin-guard.ts). */
  cors: Readonly<Record<string, string>> | undefined;
  /**
   * The id of the request the body held, once it is parsed (mcp-post.ts): a refusal written after
   * that (a missing or unknown session, the store unavailable) answers that request, as JSON-RPC
   * asks; null before, and for a notification, a client's response or a batch.
   */
  messageId: JsonRpcId | null = null;
  #bodyRead = false;
  #answered = false;
  #inFlight = false;

  constructor(
    readonly request: IncomingMessage,
    readonly response: ServerResponse,
    path: string,
    readonly requestId: string,
    private readonly startedAt: number,
    private readonly recorder: RequestRecorder,
    readonly trace: HttpRequestTrace | undefined,
    private readonly drain: HttpDrain | undefined,
    private readonly trustedProxies: TrustedProxies,
  ) {
    this.method = 'POST';
    this.path = path;
    if (drain) {
      drain.enter();
      this.#inFlight = true;
    }
  }

  header(name: string): string | undefined {
    const value = this.request.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  }

  clientAddress(): string {
    return clientAddressOf(this.request, this.trustedProxies);
  }

  bodyUnread(): boolean {
    return !this.#bodyRead;
  }

  /** The client left before the answer ended: how a 2026 request is cancelled. */
  get cancel(): Cancellation {
    return responseGone(this.response);
  }

  /** The body, up to `maxBytes` (a declared Content-Length was checked against it already). */
  readBody(maxBytes: number): Promise<BodyRead> {
    this.#bodyRead = true;
    const { request } = this;
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const onData = (chunk: Buffer): void => {
        size += chunk.length;
        if (size > maxBytes) {
          stop();
          resolve({ ok: false, tooLarge: true });
          return;
        }
        chunks.push(chunk);
      };
      const onEnd = (): void => {
        stop();
        resolve({ ok: true, bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) });
      };
      const onAbort = (): void => {
        stop();
        resolve({ ok: false, tooLarge: false });
      };
      const stop = (): void => {
        request.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onAbort);
      };
      request.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onAbort);
    });
  }

  /** The answer, as the gateway's replies make it (responder.ts): a body now, whole or in pieces, or a stream. */
  readonly respond: PiecesResponder = (body, status, headers) => {
    if (typeof body === 'string' || Array.isArray(body)) this.#send(status, headers, body as string | JsonPieces);
    else this.#stream(status, headers, body as ReadableStream<Uint8Array>);
  };

  json(value: unknown, status = 200, headers?: Readonly<Record<string, string>>): void {
    this.#send(status, headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS, JSON.stringify(value));
  }

  /** 202 Accepted, no body: a notification or a client's response. */
  accepted(): void {
    this.#send(202, undefined, undefined);
  }

  refuse({ status, code, message, headers }: Refusal): void {
    this.#send(status, headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS, JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: this.messageId }));
  }

  /** The request ended without an answer (the client left while sending its body). */
  abandon(): void {
    if (this.#answered) return;
    this.#answered = true;
    this.trace?.abandoned();
    this.#leave();
  }

  #send(status: number, headers: Readonly<Record<string, string>> | undefined, body: string | JsonPieces | undefined): void {
    if (this.#answered) return;
    this.#answered = true;
    const head = this.#head(headers);
    const { response } = this;
    if (typeof body === 'object') writePieces(response, status, head, body);
    else {
      // A 202's lack of a body is said with a zero length: node:http would otherwise frame it as an empty chunked body.
      head['content-length'] = body === undefined ? '0' : String(Buffer.byteLength(body));
      response.writeHead(status, head).end(body);
    }
    this.#record(status, false);
    this.#leave();
  }

  #stream(status: number, headers: Readonly<Record<string, string>>, body: ReadableStream<Uint8Array>): void {
    if (this.#answered) {
      void body.cancel().catch(() => {});
      return;
    }
    this.#answered = true;
    const { response } = this;
    response.writeHead(status, this.#head(headers));
    response.flushHeaders();
    this.#record(status, true);
    void pipeStream(body, response).finally(() => this.#leave());
  }

  #head(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
    const head: Record<string, string> = { [REQUEST_ID_HEADER]: this.requestId };
    if (this.cors) Object.assign(head, this.cors);
    if (headers) Object.assign(head, headers);
    return head;
  }

  #record(status: number, streamed: boolean): void {
    this.trace?.responded(status);
    this.recorder.record({
      requestId: this.requestId,
      path: this.path,
      method: this.method,
      status,
      streamed,
      sessionId: this.header('mcp-session-id'),
      startedAt: this.startedAt,
      span: this.trace?.span,
    });
  }

  #leave(): void {
    if (!this.#inFlight) return;
    this.#inFlight = false;
    this.drain?.leave();
  }
}

/** A body in pieces (a page's kept bytes among them), its length counted in bytes, written with the head in one go. */
function writePieces(response: ServerResponse, status: number, head: Record<string, string>, pieces: JsonPieces): void {
  let length = 0;
  for (const piece of pieces) length += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.byteLength;
  head['content-length'] = String(length);
  response.writeHead(status, head);
  // Corked, the head and every piece leave in one write (end() uncorks).
  response.cork();
  const last = pieces.length - 1;
  for (let index = 0; index < last; index += 1) response.write(pieces[index]!);
  response.end(pieces[last]);
}

/** Writes an SSE body as it comes, until it ends or the client leaves (which cancels its source). */
async function pipeStream(body: ReadableStream<Uint8Array>, response: ServerResponse): Promise<void> {
  const reader = body.getReader();
  const onClose = (): void => {
    if (!response.writableFinished) void reader.cancel().catch(() => {});
  };
  response.once('close', onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (response.destroyed) break;
      if (!response.write(value)) await drained(response);
    }
    response.end();
  } catch {
    response.destroy();
  } finally {
    response.off('close', onClose);
  }
}

function drained(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      response.off('drain', done).off('close', done);
      resolve();
    };
    response.once('drain', done).once('close', done);
  });
}
