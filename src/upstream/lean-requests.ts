// The gateway's request path on a live connection, without the client SDK's protocol layer. The SDK
// keeps the handshake, the server's own requests (relayed to clients), its notifications and a
// modern upstream's listens; the gateway's requests, which are every request of every client
// through this connection, go out here, on the same transport, under ids and progress tokens of
// their own, and their answers are taken off the transport before the SDK sees them. What that
// saves, per request: an AbortController and a timer of the SDK's, its schema checks of the result,
// its bookkeeping promises (measured with `npm run bench -- --profile`), and its maps of requests in
// flight, which are plain Maps (see support/transient-map.ts for what those cost once a full
// collection has run). Timeouts share one coarse sweep instead of a timer each. What differs by era
// (the 2026 envelope, result types, deleted methods) is the dialect's (request-dialect.ts).
// See docs/decisions/0002-lean-upstream-requests.md.
import type { JSONRPCMessage, Transport, TransportSendOptions } from '@modelcontextprotocol/client';
import { withMetaEntry } from '../protocol/copy-with.js';
import { TransientMap } from '../support/transient-map.js';
import { UpstreamCancelledError, UpstreamRpcError, UpstreamTimeoutError, UpstreamUnavailableError } from './errors.js';
import { LEGACY_DIALECT, type RequestDialect } from './request-dialect.js';
import { traceHeadersOf } from './trace-headers.js';
import type { JsonObject, ProgressUpdate, UpstreamRequestOptions } from './types.js';

/** Ours, and never the SDK's (it numbers its own requests). */
const ID_PREFIX = 'sb:';
const PROGRESS_PREFIX = 'sbp:';
/** How often deadlines are checked: a timeout fires up to this much late. */
const SWEEP_MS = 250;

interface Pending {
  /**
   * As sent: an answer must carry exactly this id, and progress exactly this token (their number
   * alone is how the request is found; `sb:07` does not name request 7).
   */
  readonly id: string;
  readonly progressToken: string | undefined;
  readonly method: string;
  readonly deadline: number;
  readonly timeoutMs: number;
  readonly resolve: (result: JsonObject) => void;
  readonly reject: (error: Error) => void;
  readonly onProgress: ((update: ProgressUpdate) => void) | undefined;
  /**
   * The request's own stream, on a transport that opens one per request (the SDK's Streamable HTTP
   * transport, on a 2026 connection): closing it is how 2026-07-28 cancels a request.
   */
  readonly stream: AbortController | undefined;
  /** Stops listening for the caller's cancellation. */
  stopListening: (() => void) | undefined;
}

export class LeanRequests {
  /**
   * By request number, in a TransientMap: a Map would keep every request's promise, and all it
   * reaches, alive through young collections (support/transient-map.ts).
   */
  readonly #pending = new TransientMap<number, Pending>();
  #counter = 0;
  #sweep: NodeJS.Timeout | undefined;
  #closedReason: string | undefined;
  /** Cancels by closing a request's stream rather than by notifications/cancelled (see Pending.stream). */
  readonly #cancelsByStream: boolean;

  constructor(
    private readonly server: string,
    private readonly transport: Transport,
    private readonly dialect: RequestDialect = LEGACY_DIALECT,
  ) {
    this.#cancelsByStream = dialect.cancelsByClosingStream && transport.hasPerRequestStream === true;
    // The SDK installed its handler at connect: answers to our requests stop here, the rest goes on.
    const sdkOnMessage = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (!this.#take(message)) sdkOnMessage?.(message, extra);
    };
    const sdkOnClose = transport.onclose;
    transport.onclose = () => {
      this.close('the connection closed');
      sdkOnClose?.();
    };
  }

  /** headers: extra HTTP headers of this one request, for a transport that opens one per request. */
  request(method: string, params: JsonObject | undefined, options: UpstreamRequestOptions & { timeoutMs: number; headers?: Record<string, string> }): Promise<JsonObject> {
    if (this.#closedReason !== undefined) return Promise.reject(new UpstreamUnavailableError(this.server, this.#closedReason));
    const refusal = this.dialect.refusal(this.server, method);
    if (refusal) return Promise.reject(refusal);
    const { signal, cancel, timeoutMs, onProgress } = options;
    if (signal?.aborted) return Promise.reject(new UpstreamCancelledError(this.server, method));
    this.#counter += 1;
    const number = this.#counter;
    const id = `${ID_PREFIX}${number}`;
    const progressToken = onProgress ? `${PROGRESS_PREFIX}${number}` : undefined;
    const sent = this.dialect.outbound(progressToken === undefined ? params : withProgressToken(params, progressToken), method);
    const stream = this.#cancelsByStream ? new AbortController() : undefined;
    return new Promise<JsonObject>((resolve, reject) => {
      const pending: Pending = { id, progressToken, method, deadline: Date.now() + timeoutMs, timeoutMs, resolve, reject, onProgress, stream, stopListening: undefined };
      this.#pending.set(number, pending);
      // Listening starts once the request is waiting, so that a cancellation that came first (its
      // listener runs at once) finds it.
      const onCancel = () => this.#cancel(number, new UpstreamCancelledError(this.server, method), 'cancelled by the client');
      if (cancel) pending.stopListening = cancel.onCancel(onCancel);
      else if (signal) {
        signal.addEventListener('abort', onCancel, { once: true });
        pending.stopListening = () => signal.removeEventListener('abort', onCancel);
      }
      if (!this.#pending.has(number)) return;
      this.#sweep ??= setInterval(() => this.#expire(), SWEEP_MS).unref();
      // Without a spread for the optional params: this is every request of every client.
      const message = (sent ? { jsonrpc: '2.0', id, method, params: sent } : { jsonrpc: '2.0', id, method }) as JSONRPCMessage;
      const sending = stream
        ? this.transport.send(message, streamOptions(stream, options.headers, sent, () => this.#streamEnded(number)))
        : this.transport.send(message);
      sending.catch((error: unknown) => {
        this.#settle(number)?.reject(new UpstreamUnavailableError(this.server, error instanceof Error ? error.message : String(error)));
      });
    });
  }

  /** The connection is gone: every request waiting on it fails now, naming the server. */
  close(reason: string): void {
    this.#closedReason = reason;
    clearInterval(this.#sweep);
    this.#sweep = undefined;
    for (const number of [...this.#pending.keys()]) this.#settle(number)?.reject(new UpstreamUnavailableError(this.server, reason));
  }

  /** True when the message was an answer (or progress) for one of our requests. */
  #take(message: JSONRPCMessage): boolean {
    if ('id' in message && !('method' in message)) {
      const id = message.id;
      if (typeof id !== 'string' || !id.startsWith(ID_PREFIX)) return false;
      const pending = this.#settle(numberIn(id, ID_PREFIX), id);
      if (!pending) return true;
      if ('result' in message) {
        const decoded = this.dialect.decode(this.server, pending.method, message.result);
        if (decoded instanceof Error) pending.reject(decoded);
        else pending.resolve(decoded);
      } else {
        const { code, message: text, data } = message.error;
        pending.reject(new UpstreamRpcError(this.server, code, text, data));
      }
      return true;
    }
    if ('method' in message && message.method === 'notifications/progress' && !('id' in message)) {
      const params = message.params as { progressToken?: unknown; progress?: unknown; total?: unknown; message?: unknown } | undefined;
      const token = params?.progressToken;
      if (typeof token !== 'string' || !token.startsWith(PROGRESS_PREFIX)) return false;
      const pending = this.#pending.get(numberIn(token, PROGRESS_PREFIX));
      if (pending?.onProgress && pending.progressToken === token && typeof params?.progress === 'number') {
        pending.onProgress({
          progress: params.progress,
          ...(typeof params.total === 'number' && { total: params.total }),
          ...(typeof params.message === 'string' && { message: params.message }),
        });
      }
      return true;
    }
    return false;
  }

  /** Removes a request from the waiting ones; undefined when it was no longer waiting (or `id` is not quite its id). */
  #settle(number: number, id?: string): Pending | undefined {
    const pending = this.#pending.get(number);
    if (!pending || (id !== undefined && pending.id !== id)) return undefined;
    this.#pending.delete(number);
    pending.stopListening?.();
    return pending;
  }

  /**
   * A request's own stream ended before its answer came (the connection dropped, the server went
   * away): on 2026-07-28 that request is lost, and the client is to ask again (basic/transports), so
   * its caller learns it now rather than at its timeout.
   */
  #streamEnded(number: number): void {
    this.#settle(number)?.reject(new UpstreamUnavailableError(this.server, 'the request\'s stream ended before the upstream answered it'));
  }

  /** Gives up on a request: the upstream is told (it may stop working on it), the caller gets `error`. */
  #cancel(number: number, error: Error, reason: string): void {
    const pending = this.#settle(number);
    if (!pending) return;
    pending.reject(error);
    if (pending.stream) {
      pending.stream.abort(reason);
      return;
    }
    const params = this.dialect.outbound({ requestId: pending.id, reason }, 'notifications/cancelled');
    void this.transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params } as JSONRPCMessage).catch(() => {});
  }

  #expire(): void {
    // Stopped here, a sweep after the last answer, rather than when the last answer comes: a
    // connection with one call at a time would otherwise make and clear a timer per call.
    if (this.#pending.size === 0) {
      clearInterval(this.#sweep);
      this.#sweep = undefined;
      return;
    }
    const now = Date.now();
    for (const [number, pending] of this.#pending) {
      if (pending.deadline <= now) this.#cancel(number, new UpstreamTimeoutError(this.server, pending.method, pending.timeoutMs), `no answer within ${pending.timeoutMs} ms`);
    }
  }
}

/** A request's own stream, and its headers: the caller's, and its trace context (trace-headers.ts). */
function streamOptions(
  stream: AbortController,
  headers: Record<string, string> | undefined,
  params: JsonObject | undefined,
  onRequestStreamEnd: () => void,
): TransportSendOptions {
  const trace = traceHeadersOf(params);
  const all = trace ? { ...headers, ...trace } : headers;
  return all ? { requestSignal: stream.signal, headers: all, onRequestStreamEnd } : { requestSignal: stream.signal, onRequestStreamEnd };
}

function withProgressToken(params: JsonObject | undefined, token: string): JsonObject {
  return withMetaEntry(params, 'progressToken', token);
}

/** The number in one of our ids or progress tokens (`sb:12`: 12); NaN, found nowhere, if there is none. */
function numberIn(text: string, prefix: string): number {
  return Number(text.slice(prefix.length));
}
