// The answer to one 2026 request: plain JSON when nothing but the response goes out, else an SSE
// stream scoped to the request (progress, log messages) that the response ends. Nothing is logged
// for replay: 2026 streams are not resumable, and a client that loses one re-issues the request.
import type { JsonRpcId, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../../protocol/json-rpc.js';
import type { RelatedChannel } from '../../gateway/calls/related-channel.js';
import { responseBody, responseJson } from '../../protocol/json-text.js';
import { JSON_HEADERS, type PiecesResponder } from '../responder.js';
import type { StoreUnavailableAnswer } from '../transport-errors.js';
import { SseStream } from './sse-stream.js';

export class ModernReply {
  readonly related: RelatedChannel;
  #stream: SseStream<void> | undefined;
  #finished = false;

  /** `respond` writes the HTTP answer (fast-path/node-exchange.ts); `storeUnavailable` is the 503 when the store did not answer. */
  constructor(
    private readonly respond: PiecesResponder,
    private readonly storeUnavailable: StoreUnavailableAnswer,
  ) {
    this.related = { send: (message) => this.#send(message) };
  }

  finish(response: JsonRpcResponse, status: 200 | 400 | 404 = 200): void {
    this.#finished = true;
    if (!this.#stream) {
      this.respond(responseBody(response), status, JSON_HEADERS);
      return;
    }
    // Headers went out with the first event: the status is 200 whatever the outcome.
    this.#stream.send(undefined, responseJson(response));
    this.#stream.close();
  }

  /** The session store did not answer: 503 with Retry-After, or the last event of a stream under way. */
  unavailable(id: JsonRpcId): void {
    if (this.#stream) {
      this.finish(JSON.parse(this.storeUnavailable.body(id)) as JsonRpcResponse);
      return;
    }
    this.#finished = true;
    const { storeUnavailable } = this;
    this.respond(storeUnavailable.body(id), storeUnavailable.status, storeUnavailable.headers);
  }

  #send(message: JsonRpcNotification | JsonRpcRequest): void {
    if (this.#finished) return;
    this.#stream ??= new SseStream(this.respond);
    this.#stream.send(undefined, JSON.stringify(message));
  }
}
