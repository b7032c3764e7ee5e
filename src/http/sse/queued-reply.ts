// The answer to one request of a 2024-11-05 HTTP+SSE session, whose POSTs are answered 202 and
// whose one GET stream carries everything: the messages related to the request (progress, log
// messages, server-to-client requests) and then its response go into the session's queue, in that
// order, and the stream takes them from there on whichever replica holds it. PostReply's twin for
// a transport where the POST cannot carry its own answer.
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../../protocol/json-rpc.js';
import type { RelatedChannel } from '../../gateway/calls/related-channel.js';
import type { Logger } from '../../observe/logger.js';
import type { EventMessage, SessionEvents } from '../../session/events.js';

export class QueuedReply {
  readonly related: RelatedChannel;
  #finished = false;
  /** Enqueued one after another, so the stream sees them in the order they were sent. */
  #chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly sessionId: string,
    private readonly events: SessionEvents,
    private readonly logger: Logger,
  ) {
    this.related = {
      send: (message) => {
        // Progress that arrives after the response has nothing left to belong to.
        if (!this.#finished) void this.#enqueue(message);
      },
    };
  }

  /** Queues the response after everything related to the request; resolves once it is queued. */
  finish(response: JsonRpcResponse): Promise<void> {
    this.#finished = true;
    return this.#enqueue(response);
  }

  #enqueue(message: JsonRpcNotification | JsonRpcRequest | JsonRpcResponse): Promise<void> {
    this.#chain = this.#chain
      .then(() => this.events.enqueue([this.sessionId], message as unknown as EventMessage))
      .catch((error: unknown) => {
        this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'could not queue a message for a legacy SSE stream');
      });
    return this.#chain;
  }
}
