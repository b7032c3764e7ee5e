// A Streamable HTTP upstream's wire, as the client SDK's Transport so the SDK still runs the
// handshake, the server's own requests and a 2026 server's listens. Ours rather than the SDK's
// StreamableHTTPClientTransport for the costs it has on every call (several times a stdio call's
// gateway CPU): fetch's Request/Response objects, web streams (TextDecoderStream,
// EventSourceParserStream), a zod check of every message. Here a POST is one
// undici request() on the global dispatcher's keep-alive pool, and its answer is read off a Node
// stream (http-body.ts).
//
// A 2026-07-28 server (`modern`) gets each request as a POST of its own, with the headers its body
// implies and no session, and answers it as JSON or on a stream of that request's own, which the
// request's signal closes: how 2026 cancels. The SDK's transport combines each such signal with a
// long-lived one of its own (AbortSignal.any), and Node 20 keeps every combined signal referenced
// from the long-lived one for the connection's life: memory kept per call that never came back.
// Here a request's signal is its own. See docs/decisions/0004-http-upstream-transport-on-undici.md.
import { getGlobalDispatcher, request, type Dispatcher } from 'undici';
import { SdkError, SdkErrorCode, SdkHttpError, type JSONRPCMessage, type JSONRPCRequest, type Transport, type TransportSendOptions } from '@modelcontextprotocol/client';
import { deliverJson, headerValue, lowerCased, mediaType, readEventStream, type MessageSink, type ResponseBody } from './http-body.js';
import { derivedHeaders, envelopeVersionOf, RESERVED_REQUEST_HEADERS } from './enveloped-request.js';
import { ListenStream } from './http-listen-stream.js';
import { traceHeadersOf } from './trace-headers.js';

export interface LeanHttpOptions {
  readonly url: URL;
  /** Sent with every request: the upstream's credentials from the config, never a client's. */
  readonly headers: Readonly<Record<string, string>>;
  /** A caller's own headers (per-user credentials), read for every request, winning over `headers`. */
  readonly callerHeaders?: () => Readonly<Record<string, string>>;
  /** An upstream session to continue (`isolation: session`): no initialize, this Mcp-Session-Id. */
  readonly sessionId?: string;
  /**
   * Whether close() ends the upstream session (DELETE). Not for a session that belongs to a
   * gateway session: it outlives this connection (another replica, or this one after an idle
   * close, continues it by id).
   */
  readonly endSessionOnClose: boolean;
  /** Told of every refused request's status and WWW-Authenticate header (challenges.ts). */
  readonly onRefused?: (status: number, wwwAuthenticate: string | undefined) => void;
  /** A 2026-07-28 server (the era probe's verdict): a stream per request, which closing cancels. */
  readonly modern?: boolean;
}

const POST_ACCEPT = 'application/json, text/event-stream';
/** A DELETE at close is a courtesy to the upstream: it must not hold up a shutdown. */
const DELETE_TIMEOUT_MS = 1_000;

export class LeanHttpTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  readonly #url: string;
  /** The URL's parts, as a dispatcher takes them (#post). */
  readonly #origin: string;
  readonly #path: string;
  readonly #headers: Record<string, string>;
  readonly #callerHeaders: (() => Readonly<Record<string, string>>) | undefined;
  readonly #endSessionOnClose: boolean;
  readonly #onRefused: LeanHttpOptions['onRefused'];
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;
  #listen: ListenStream | undefined;
  /** The 2026 requests' answer streams still open, closed with the transport (a listen's is open for long). */
  readonly #streams = new Set<ResponseBody>();
  #closed = false;
  /** The SDK's Transport flag: its Protocol (and lean-requests.ts) then cancel a request by closing its stream. */
  readonly hasPerRequestStream: boolean;
  /** Where the messages of a response go; one object for all, not a closure per POST. */
  readonly #sink: MessageSink = {
    message: (message) => this.onmessage?.(message),
    error: (error) => this.onerror?.(error),
  };

  constructor(options: LeanHttpOptions) {
    this.#url = options.url.href;
    this.#origin = options.url.origin;
    this.#path = `${options.url.pathname}${options.url.search}`;
    // Lower case, so that ours (content-type, accept, the session's) replace a configured one
    // instead of travelling next to it.
    this.#headers = lowerCased(options.headers);
    this.#callerHeaders = options.callerHeaders;
    this.#sessionId = options.sessionId;
    this.#endSessionOnClose = options.endSessionOnClose;
    this.#onRefused = options.onRefused;
    this.hasPerRequestStream = options.modern === true;
  }

  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
  }

  async start(): Promise<void> {
    // Nothing to open: each message is a request of its own on the pooled connections.
  }

  /**
   * Resolves once the upstream took the message: a 202, a JSON answer delivered, or the head of
   * an event stream whose events are then delivered as they arrive. Rejects with the HTTP status
   * for a refusal, and with the socket's error when the upstream cannot be reached: both are
   * what the supervisor's circuit counts (lean-requests.ts makes them UpstreamUnavailableError).
   */
  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const version = envelopeVersionOf(message);
    if (version !== undefined) return this.#sendEnveloped(message as JSONRPCRequest, version, options);
    const initialize = isRequest(message, 'initialize');
    const headers = this.#headersFor(POST_ACCEPT, !initialize);
    headers['content-type'] = 'application/json';
    const trace = 'params' in message ? traceHeadersOf(message.params) : undefined;
    if (trace) Object.assign(headers, trace);
    const { statusCode, headers: answer, body } = await this.#post(headers, JSON.stringify(message), undefined);
    if (statusCode < 200 || statusCode >= 300) {
      this.#onRefused?.(statusCode, headerValue(answer['www-authenticate']) || undefined);
      return this.#refused(statusCode, await body.text().catch(() => ''), initialize);
    }
    if (initialize) this.#sessionId = headerValue(answer['mcp-session-id']) || undefined;
    if (statusCode === 202 || !('id' in message && 'method' in message)) {
      await body.dump();
      if (statusCode === 202 && isNotification(message, 'notifications/initialized')) this.#startListening();
      return;
    }
    const type = mediaType(answer['content-type']);
    if (type === 'text/event-stream') {
      // Not awaited: the request's answer, and what comes before it, arrive through onmessage.
      readEventStream(body, this.#sink).catch((error: unknown) => {
        if (!this.#closed) this.onerror?.(new Error(`SSE stream disconnected: ${error instanceof Error ? error.message : String(error)}`));
      });
      return;
    }
    if (type === 'application/json') return deliverJson(await body.text(), this.#sink);
    return unexpectedContent(type, body);
  }

  /**
   * A 2026 request (its envelope names the version): the headers its body implies, the request's
   * own (Mcp-Param-*, trace context) but never in place of those, no session. A refusal that
   * carries the request's JSON-RPC error (400: a header mismatch, a missing capability, an
   * unsupported version; 404: an unknown method) is the request's answer, not a broken connection.
   */
  async #sendEnveloped(message: JSONRPCRequest, version: string, options: TransportSendOptions | undefined): Promise<void> {
    const headers = this.#headersFor(POST_ACCEPT, false);
    headers['content-type'] = 'application/json';
    Object.assign(headers, derivedHeaders(message, version));
    if (options?.headers) {
      for (const [name, value] of Object.entries(options.headers)) {
        const lower = name.toLowerCase();
        if (!RESERVED_REQUEST_HEADERS.has(lower)) headers[lower] = value;
      }
    }
    const trace = traceHeadersOf(message.params);
    if (trace) Object.assign(headers, trace);
    const signal = options?.requestSignal;
    // Closing the transport, or the request's own signal, ends a stream on purpose: nothing to report.
    const intended = (): boolean => this.#closed || signal?.aborted === true;
    let answer: Dispatcher.ResponseData;
    try {
      answer = await this.#post(headers, JSON.stringify(message), signal);
    } catch (error) {
      if (!intended()) this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
    const { statusCode, headers: answerHeaders, body } = answer;
    if (statusCode < 200 || statusCode >= 300) {
      this.#onRefused?.(statusCode, headerValue(answerHeaders['www-authenticate']) || undefined);
      const text = await body.text().catch(() => '');
      if ((statusCode === 400 || statusCode === 404) && this.#deliveredError(text, message.id)) return;
      return this.#refused(statusCode, text, false);
    }
    const type = mediaType(answerHeaders['content-type']);
    if (statusCode === 202) {
      await body.dump();
      return;
    }
    if (type === 'application/json') return deliverJson(await body.text(), this.#sink);
    if (type !== 'text/event-stream') return unexpectedContent(type, body);
    // Not awaited: the answer, and what comes before it, arrive through onmessage. The stream ending
    // (or breaking) before the answer loses the request in 2026 (no resumption): its sender is told.
    this.#streams.add(body);
    readEventStream(body, this.#sink).then(
      () => {
        this.#streams.delete(body);
        if (!intended()) options?.onRequestStreamEnd?.();
      },
      (error: unknown) => {
        this.#streams.delete(body);
        if (intended()) return;
        this.onerror?.(new Error(`SSE stream disconnected: ${error instanceof Error ? error.message : String(error)}`));
        options?.onRequestStreamEnd?.();
      },
    );
  }

  /** Whether `text` was the JSON-RPC error answering request `id`, now delivered. */
  #deliveredError(text: string, id: JSONRPCRequest['id']): boolean {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return false;
    }
    const message = parsed as { jsonrpc?: unknown; id?: unknown; error?: unknown };
    if (message?.jsonrpc !== '2.0' || message.id !== id || typeof message.error !== 'object' || message.error === null) return false;
    this.#sink.message(parsed as JSONRPCMessage);
    return true;
  }

  async close(): Promise<void> {
    if (!this.#end()) return;
    if (this.#endSessionOnClose && this.#sessionId !== undefined) await this.#endSession(this.#sessionId).catch(() => {});
  }

  /** False when it had ended already. */
  #end(): boolean {
    if (this.#closed) return false;
    this.#closed = true;
    this.#listen?.stop();
    for (const stream of this.#streams) stream.destroy();
    this.#streams.clear();
    this.onclose?.();
    return true;
  }

  #headersFor(accept: string, withSession: boolean): Record<string, string> {
    const headers: Record<string, string> = this.#callerHeaders ? { ...this.#headers, ...lowerCased(this.#callerHeaders()), accept } : { ...this.#headers, accept };
    if (withSession && this.#sessionId !== undefined) headers['mcp-session-id'] = this.#sessionId;
    if (this.#protocolVersion !== undefined) headers['mcp-protocol-version'] = this.#protocolVersion;
    return headers;
  }

  #refused(status: number, text: string, initialize: boolean): never {
    const detail = text === '' ? '' : `: ${text.slice(0, 500)}`;
    if (status === 404 && this.#sessionId !== undefined && !initialize) {
      // The upstream forgot the session (restarted, expired it): nothing on this connection can
      // work again. Ending the transport tells the supervisor, which reconnects with a new session.
      const error = new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `the upstream session is gone (HTTP 404)${detail}`, { status, text });
      this.onerror?.(error);
      this.#end();
      throw error;
    }
    throw new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `Error POSTing to endpoint (HTTP ${status})${detail}`, { status, text });
  }

  /**
   * One POST on the global dispatcher (undici's keep-alive pool per origin), asked directly:
   * undici's request(url, ...) parses the URL and copies the options into a new object on every
   * call before it does the same (makeDispatcher;
   * docs/decisions/0004-http-upstream-transport-on-undici.md).
   */
  #post(headers: Record<string, string>, body: string, signal: AbortSignal | undefined): Promise<Dispatcher.ResponseData> {
    const options: Dispatcher.RequestOptions = { origin: this.#origin, path: this.#path, method: 'POST', headers, body };
    if (signal) options.signal = signal;
    return getGlobalDispatcher().request(options);
  }

  #startListening(): void {
    if (this.#closed || this.#listen) return;
    this.#listen = new ListenStream({
      url: this.#url,
      headers: () => this.#headersFor('text/event-stream', true),
      onmessage: (message) => this.onmessage?.(message),
      onerror: (error) => this.onerror?.(error),
    });
    this.#listen.start();
  }

  async #endSession(sessionId: string): Promise<void> {
    const headers = { ...this.#headersFor(POST_ACCEPT, false), 'mcp-session-id': sessionId };
    const { body } = await request(this.#url, { method: 'DELETE', headers, signal: AbortSignal.timeout(DELETE_TIMEOUT_MS) });
    await body.dump();
  }
}

/** An answer in a media type that carries no JSON-RPC: read off (the connection goes back to the pool), then refused. */
async function unexpectedContent(type: string | undefined, body: ResponseBody): Promise<never> {
  await body.dump();
  throw new SdkError(SdkErrorCode.ClientHttpUnexpectedContent, `Unexpected content type: ${type}`, { contentType: type });
}

function isRequest(message: JSONRPCMessage, method: string): boolean {
  return 'method' in message && 'id' in message && message.method === method;
}

function isNotification(message: JSONRPCMessage, method: string): boolean {
  return 'method' in message && !('id' in message) && message.method === method;
}
