// The answer to one POSTed request: plain JSON when the request produced nothing but its response
// (the fast path: no event log, no stream), or an SSE stream from the moment something related to
// the request has to go out before the response (progress, a log message, a server-to-client
// request). Everything sent on such a stream is logged first, so a client that loses the
// connection can resume it with GET and Last-Event-ID, on any replica, and still get the response:
// a dropped connection is not a cancellation.
import type { JsonRpcId, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../../protocol/json-rpc.js';
import type { RelatedChannel } from '../../gateway/calls/related-channel.js';
import type { Logger } from '../../observe/logger.js';
import { catalogueError, ERRORS } from '../../protocol/error-catalogue.js';
import { responseBody } from '../../protocol/json-text.js';
import type { EventMessage, SessionEvents } from '../../session/events.js';
import { isStoreUnavailable } from '../../session/store-unavailable.js';
import type { StoreUnavailableAnswer } from '../transport-errors.js';
import type { OpenStreams } from './open-streams.js';
import { JSON_HEADERS, type PiecesResponder } from '../responder.js';
import { SseStream } from './sse-stream.js';
import { newStreamId, RECONNECT_DELAY_MS } from './stream-ids.js';

export interface PostReplyOptions {
  readonly sessionId: string;
  readonly events: SessionEvents;
  readonly openStreams: OpenStreams;
  /** Whether to start streams with a priming event (clients of 2025-11-25 and later). */
  readonly prime: boolean;
  /** Writes the HTTP answer (fast-path/node-exchange.ts). */
  readonly respond: PiecesResponder;
  readonly logger: Logger;
  /** The 503 when the session store did not answer. */
  readonly unavailable: StoreUnavailableAnswer;
}

export class PostReply {
  readonly related: RelatedChannel;
  #stream: { id: string; sse: SseStream<void> } | undefined;
  #finished = false;
  /** Appends and writes happen in order, one after another; none until something goes on a stream. */
  #chain: Promise<void> | undefined;

  constructor(private readonly options: PostReplyOptions) {
    this.related = { send: (message) => this.#sendRelated(message) };
  }

  /** The request's response: as JSON, or as the last event of the stream, which then ends. */
  finish(response: JsonRpcResponse): void {
    this.#finished = true;
    if (!this.#stream) {
      this.options.respond(responseBody(response), 200, JSON_HEADERS);
      return;
    }
    const { sse } = this.#stream;
    this.#enqueue(response).then(() => sse.close());
  }

  /**
   * The request could not be served: the session store did not answer (503, retry), or a bug (500).
   * On a stream already under way the status has gone out: the error is its last event.
   */
  fail(id: JsonRpcId, error: unknown): void {
    const unavailable = isStoreUnavailable(error);
    const { unavailable: storeUnavailable } = this.options;
    if (!unavailable) {
      this.options.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'a request failed');
    }
    if (this.#stream) {
      const message = unavailable ? JSON.parse(storeUnavailable.body(id)) : { jsonrpc: '2.0', id, error: catalogueError('InternalError') };
      this.finish(message as JsonRpcResponse);
      return;
    }
    this.#finished = true;
    if (unavailable) this.options.respond(storeUnavailable.body(id), storeUnavailable.status, storeUnavailable.headers);
    else this.options.respond(JSON.stringify({ jsonrpc: '2.0', id, error: catalogueError('InternalError') }), ERRORS.InternalError.status, JSON_HEADERS);
  }

  #sendRelated(message: JsonRpcNotification | JsonRpcRequest): void {
    // Progress that arrives after the response has nothing left to belong to.
    if (this.#finished) return;
    if (!this.#stream) this.#startStream();
    void this.#enqueue(message);
  }

  #startStream(): void {
    const id = newStreamId('post');
    const sse = new SseStream(this.options.respond);
    this.#stream = { id, sse };
    this.options.openStreams.add(this.options.sessionId, sse);
    if (this.options.prime) sse.prime(`${id}.0`, RECONNECT_DELAY_MS);
  }

  #enqueue(message: JsonRpcNotification | JsonRpcRequest | JsonRpcResponse): Promise<void> {
    const stream = this.#stream;
    if (!stream) return Promise.resolve();
    this.#chain = (this.#chain ?? Promise.resolve()).then(async () => {
      let eventId: string | undefined;
      try {
        eventId = await this.options.events.append(this.options.sessionId, stream.id, message as unknown as EventMessage);
      } catch (error) {
        // Without the log the message can still go out now; it just cannot be replayed.
        this.options.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'could not log a stream event');
      }
      stream.sse.send(eventId, JSON.stringify(message));
    });
    return this.#chain;
  }
}
