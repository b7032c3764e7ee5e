// The HTTP side of a graceful shutdown. While the gateway drains:
// - a new session (a POST without Mcp-Session-Id, i.e. initialize) and a new GET stream get 503
//   with a JSON-RPC error body, so the client retries on another replica;
// - requests of existing sessions are still served (a 2024-11-05 client names its session in the
//   `sessionId` query instead: its stream may be held by a replica that is not draining), and the
//   ones in flight (including a POST answered as an SSE stream, until that stream has sent its
//   response, and a 2024-11-05 answer queued after its 202, see track) are counted, so shutdown
//   can wait for them (whenIdle);
// - GET streams, which never end by themselves, are closed at once (closeStandaloneStreams): their
//   clients reconnect elsewhere with Last-Event-ID.
// Mounted on the MCP path only. A JSON answer costs a counter; only SSE bodies get wrapped.
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.js';
import { isStreamedAnswer } from './response-headers.js';
import { refuseWithHono, type Refusal } from './request-head.js';
import { catalogueRefusal } from '../protocol/error-catalogue.js';

export interface HttpDrainOptions {
  isDraining(): boolean;
  /** Retry-After on refusals: how soon the client should try again (elsewhere). */
  readonly retryAfterSeconds?: number;
}

export class HttpDrain {
  readonly middleware: MiddlewareHandler<AppEnv>;
  #inFlight = 0;
  readonly #idleWaiters = new Set<() => void>();
  readonly #standaloneStreams = new Set<() => void>();
  readonly #isDraining: () => boolean;
  readonly #newSessions: Refusal;

  constructor({ isDraining, retryAfterSeconds = 1 }: HttpDrainOptions) {
    const refusal = (what: string): Refusal => ({
      ...catalogueRefusal('ShuttingDownRefusal', what),
      headers: { 'Retry-After': String(retryAfterSeconds), Connection: 'close' },
    });
    const refuse = (c: Context<AppEnv>, what: string): Response => refuseWithHono(c, refusal(what));
    this.#isDraining = isDraining;
    this.#newSessions = refusal('new sessions');

    this.middleware = async (c, next) => {
      const method = c.req.method;
      if (method === 'GET') {
        if (isDraining()) return refuse(c, 'new streams');
        await next();
        const body = eventStreamBody(c);
        if (body) {
          const tracked = trackBody(body, () => this.#standaloneStreams.delete(tracked.close));
          this.#standaloneStreams.add(tracked.close);
          c.res = new Response(tracked.stream, c.res);
        }
        return;
      }
      if (method === 'POST' && isDraining() && !c.req.header('mcp-session-id') && c.req.query('sessionId') === undefined) {
        return refuse(c, 'new sessions');
      }

      this.#inFlight += 1;
      let body: ReadableStream<Uint8Array> | undefined;
      try {
        await next();
        body = method === 'POST' ? eventStreamBody(c) : undefined;
      } finally {
        if (!body) this.#finishOne();
      }
      if (body) c.res = new Response(trackBody(body, () => this.#finishOne()).stream, c.res);
    };
  }

  /**
   * For the node:http fast path (fast-path/post-listener.ts), which does what the middleware does:
   * the refusal of a POST that would start a session while draining, else undefined.
   */
  refusesPost(hasSession: boolean): Refusal | undefined {
    return !hasSession && this.#isDraining() ? this.#newSessions : undefined;
  }

  /** A request (or an SSE answer) is being served; `leave` once it is done. */
  enter(): void {
    this.#inFlight += 1;
  }

  leave(): void {
    this.#finishOne();
  }

  /** Requests being served (SSE answers until their stream ends). */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Counts work that outlives its HTTP exchange (an answer queued after a 202) as in flight until it settles. */
  track(work: Promise<unknown>): void {
    this.#inFlight += 1;
    void work.then(
      () => this.#finishOne(),
      () => this.#finishOne(),
    );
  }

  /** Ends every GET stream now; their clients resume elsewhere with Last-Event-ID. */
  closeStandaloneStreams(): void {
    for (const close of [...this.#standaloneStreams]) close();
  }

  /** Resolves true once nothing is in flight, or false after timeoutMs. */
  whenIdle(timeoutMs: number): Promise<boolean> {
    if (this.#inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (idle: boolean): void => {
        clearTimeout(timer);
        this.#idleWaiters.delete(onIdle);
        resolve(idle);
      };
      const onIdle = (): void => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      timer.unref();
      this.#idleWaiters.add(onIdle);
    });
  }

  #finishOne(): void {
    this.#inFlight -= 1;
    if (this.#inFlight > 0) return;
    for (const waiter of [...this.#idleWaiters]) waiter();
  }
}

/**
 * The body of an SSE answer, else undefined. Whether it streams is asked first (response-headers.ts):
 * reading `body` of @hono/node-server's light response turns it into a real web Response with a
 * stream (an undici Response, a ReadableStream and its controllers), which a plain JSON answer never needs.
 */
function eventStreamBody(c: Context<AppEnv>): ReadableStream<Uint8Array> | undefined {
  if (!isStreamedAnswer(c)) return undefined;
  return c.res.body ?? undefined;
}

/**
 * The same bytes, with a hook for when the stream ends (its source finished, the client left, or
 * close() was called), and close(), which ends the response and cancels the source.
 */
function trackBody(source: ReadableStream<Uint8Array>, onEnd: () => void): { stream: ReadableStream<Uint8Array>; close: () => void } {
  const reader = source.getReader();
  let ended = false;
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  const end = (): boolean => {
    if (ended) return false;
    ended = true;
    onEnd();
    return true;
  };
  const stream = new ReadableStream<Uint8Array>({
    start(started) {
      controller = started;
    },
    async pull(pulled) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (end()) pulled.error(error);
        return;
      }
      if (ended) return;
      if (chunk.done) {
        end();
        pulled.close();
      } else {
        pulled.enqueue(chunk.value);
      }
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
  const close = (): void => {
    if (!end()) return;
    try {
      controller?.close();
    } catch {
      // Already closed or errored.
    }
    void reader.cancel('the gateway is shutting down').catch(() => {});
  };
  return { stream, close };
}
