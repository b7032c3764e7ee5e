// Where a session's outgoing messages wait and are remembered, so that any replica can deliver
// them and a client that reconnects with Last-Event-ID gets what it missed.
//
// Two kinds of SSE stream carry messages to a client:
//   - a POST's response stream: the messages that belong to that request, then its response;
//   - a standalone GET stream: everything else (list_changed, resources/updated, unrelated log
//     messages and server-to-client requests), taken from the session's queue.
// Every message sent on a stream is first appended to that stream's log; its position there is
// its SSE event id, `{streamId}.{position}`, so a reconnect names the stream it continues and the
// replay never mixes in another stream's messages.

export type EventMessage = Record<string, unknown>;

export interface StreamEvent {
  /** The SSE event id: `{streamId}.{position}`. */
  readonly eventId: string;
  readonly message: EventMessage;
}

export interface SessionEvents {
  /** Appends a message to one stream's log and wakes the session's watchers; returns its event id. */
  append(sessionId: string, streamId: string, message: EventMessage): Promise<string>;
  /**
   * Queues a message for the standalone streams of each session (one of them will take it). With
   * `once`, a key naming this message, queueing it again to a session that already has it does
   * nothing: a retry after a store failure whose outcome is unknown (the reply lost, a pipeline
   * half run) reaches each session once.
   */
  enqueue(sessionIds: readonly string[], message: EventMessage, once?: string): Promise<void>;
  /**
   * Takes up to `max` queued messages for one standalone stream, logging them under it. A message
   * is taken by exactly one stream, whichever replica holds it.
   */
  take(sessionId: string, streamId: string, max: number): Promise<StreamEvent[]>;
  /** The events of one stream after the given position, for a reconnect with Last-Event-ID. */
  readAfter(sessionId: string, streamId: string, afterPosition: string): Promise<StreamEvent[]>;
  /** Calls `listener` whenever the session has something new: queued, or appended to a stream. */
  watch(sessionId: string, listener: () => void): () => void;
  /** Forgets a session's queue and logs (DELETE, or the session expired). */
  drop(sessionId: string): Promise<void>;
}

/** Queues and logs are bounded: a client that never reads cannot make the gateway grow. */
export const MAX_QUEUED_PER_SESSION = 1_000;
export const MAX_LOGGED_PER_STREAM = 1_000;

export function formatEventId(streamId: string, position: string): string {
  return `${streamId}.${position}`;
}

/** Splits an SSE event id into stream and position; undefined for an id this gateway did not make. */
export function parseEventId(eventId: string): { streamId: string; position: string } | undefined {
  const dot = eventId.indexOf('.');
  if (dot <= 0 || dot === eventId.length - 1 || eventId.length > 200) return undefined;
  const streamId = eventId.slice(0, dot);
  if (!/^[A-Za-z0-9_-]+$/.test(streamId)) return undefined;
  return { streamId, position: eventId.slice(dot + 1) };
}
