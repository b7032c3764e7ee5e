// The standalone GET stream of a 2025 Streamable HTTP session: where the server sends what belongs
// to no request (list changes, resource updates, log messages, its own requests). Behaves as the
// SDK's StreamableHTTPClientTransport does, so a switch of transport changes no behaviour: opened
// once the session is initialized; 405 means the server offers none; a stream that ends or breaks
// is reopened after a backoff with Last-Event-ID (the server's `retry:` wins), and a reopen that
// fails is tried twice more before the stream is given up (reported through onerror). The health
// of the connection stays the business of pings and the circuit: this stream never closes it.
import { request } from 'undici';
import { SdkErrorCode, SdkHttpError, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { readEventStream } from './http-body.js';

/** The SDK transport's defaults (DEFAULT_STREAMABLE_HTTP_RECONNECTION_OPTIONS). */
const INITIAL_DELAY_MS = 1_000;
const DELAY_GROWTH = 1.5;
const MAX_DELAY_MS = 30_000;
const MAX_RETRIES = 2;

export interface ListenStreamOptions {
  readonly url: string;
  /** The session's headers as they are now (credentials, session id, protocol version). */
  headers(): Record<string, string>;
  onmessage(message: JSONRPCMessage): void;
  onerror(error: Error): void;
}

export class ListenStream {
  #lastEventId: string | undefined;
  #serverRetryMs: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** Aborts the GET in flight: closing the transport must end the stream. */
  #abort: AbortController | undefined;
  #stopped = false;

  constructor(private readonly options: ListenStreamOptions) {}

  start(): void {
    // A first open that fails is reported and not retried (as the SDK does): the server may not want one.
    this.#open().catch((error: unknown) => this.#report(error));
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#abort?.abort();
  }

  async #open(): Promise<void> {
    const abort = new AbortController();
    this.#abort = abort;
    const headers: Record<string, string> = { ...this.options.headers(), accept: 'text/event-stream' };
    if (this.#lastEventId !== undefined) headers['last-event-id'] = this.#lastEventId;
    const { statusCode, body } = await request(this.options.url, { method: 'GET', headers, signal: abort.signal });
    if (statusCode === 405) {
      await body.dump();
      return;
    }
    if (statusCode < 200 || statusCode >= 300) {
      await body.dump();
      throw new SdkHttpError(SdkErrorCode.ClientHttpFailedToOpenStream, `Failed to open SSE stream: HTTP ${statusCode}`, { status: statusCode });
    }
    readEventStream(body, {
      message: (message) => this.options.onmessage(message),
      error: (error) => this.options.onerror(error),
      id: (id) => (this.#lastEventId = id),
      retry: (ms) => (this.#serverRetryMs = ms),
    }).then(
      () => this.#reopen(0),
      (error: unknown) => {
        if (this.#stopped) return;
        this.options.onerror(new Error(`SSE stream disconnected: ${describe(error)}`));
        this.#reopen(0);
      },
    );
  }

  #reopen(attempt: number): void {
    if (this.#stopped) return;
    if (attempt >= MAX_RETRIES) {
      this.options.onerror(new Error(`Maximum reconnection attempts (${MAX_RETRIES}) exceeded.`));
      return;
    }
    const delay = this.#serverRetryMs ?? Math.min(INITIAL_DELAY_MS * DELAY_GROWTH ** attempt, MAX_DELAY_MS);
    this.#timer = setTimeout(() => {
      if (this.#stopped) return;
      this.#open().catch((error: unknown) => {
        if (this.#stopped) return;
        this.options.onerror(new Error(`Failed to reconnect SSE stream: ${describe(error)}`));
        this.#reopen(attempt + 1);
      });
    }, delay);
    // A pending reopen must not keep the process alive (the SDK's timer would; close() clears ours anyway).
    this.#timer.unref();
  }

  #report(error: unknown): void {
    if (!this.#stopped) this.options.onerror(error instanceof Error ? error : new Error(String(error)));
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
