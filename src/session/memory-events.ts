// SessionEvents within one process: the same queue-then-log semantics as Redis, for the memory
// store and for tests.
import { EventEmitter } from 'node:events';
import {
  formatEventId,
  MAX_LOGGED_PER_STREAM,
  MAX_QUEUED_PER_SESSION,
  type EventMessage,
  type SessionEvents,
  type StreamEvent,
} from './events.js';

interface LoggedEvent {
  readonly position: number;
  readonly message: EventMessage;
}

interface SessionState {
  lastActivity: number;
  readonly queue: EventMessage[];
  readonly streams: Map<string, { next: number; events: LoggedEvent[] }>;
}

export interface MemorySessionEventsOptions {
  /** Queues and logs of a session idle this long are dropped, like the session itself. */
  idleTimeoutSeconds: number;
}

export class MemorySessionEvents implements SessionEvents {
  readonly #sessions = new Map<string, SessionState>();
  readonly #wakeups = new EventEmitter();
  readonly #sweep: NodeJS.Timeout;

  constructor({ idleTimeoutSeconds }: MemorySessionEventsOptions) {
    // One listener per open stream; a busy replica has many.
    this.#wakeups.setMaxListeners(0);
    const idleMs = idleTimeoutSeconds * 1000;
    this.#sweep = setInterval(() => this.#dropIdle(Date.now() - idleMs), Math.min(idleMs, 60_000));
    this.#sweep.unref();
  }

  async append(sessionId: string, streamId: string, message: EventMessage): Promise<string> {
    const stream = this.#stream(sessionId, streamId);
    const position = stream.next;
    stream.next += 1;
    stream.events.push({ position, message });
    if (stream.events.length > MAX_LOGGED_PER_STREAM) stream.events.shift();
    this.#wakeups.emit(sessionId);
    return formatEventId(streamId, String(position));
  }

  // `once` needs no record here: an in-process enqueue never fails half way or loses its outcome,
  // so nothing is retried.
  async enqueue(sessionIds: readonly string[], message: EventMessage, _once?: string): Promise<void> {
    for (const sessionId of sessionIds) {
      const { queue } = this.#session(sessionId);
      queue.push(message);
      if (queue.length > MAX_QUEUED_PER_SESSION) queue.shift();
      this.#wakeups.emit(sessionId);
    }
  }

  async take(sessionId: string, streamId: string, max: number): Promise<StreamEvent[]> {
    const session = this.#sessions.get(sessionId);
    if (!session || session.queue.length === 0) return [];
    const taken = session.queue.splice(0, max);
    const events: StreamEvent[] = [];
    for (const message of taken) events.push({ eventId: await this.append(sessionId, streamId, message), message });
    return events;
  }

  async readAfter(sessionId: string, streamId: string, afterPosition: string): Promise<StreamEvent[]> {
    const after = Number(afterPosition);
    if (!Number.isInteger(after)) return [];
    const stream = this.#sessions.get(sessionId)?.streams.get(streamId);
    if (!stream) return [];
    return stream.events
      .filter((event) => event.position > after)
      .map((event) => ({ eventId: formatEventId(streamId, String(event.position)), message: event.message }));
  }

  watch(sessionId: string, listener: () => void): () => void {
    this.#wakeups.on(sessionId, listener);
    return () => this.#wakeups.off(sessionId, listener);
  }

  async drop(sessionId: string): Promise<void> {
    this.#sessions.delete(sessionId);
  }

  close(): void {
    clearInterval(this.#sweep);
    this.#wakeups.removeAllListeners();
  }

  #dropIdle(before: number): void {
    for (const [sessionId, session] of this.#sessions) {
      if (session.lastActivity < before && this.#wakeups.listenerCount(sessionId) === 0) this.#sessions.delete(sessionId);
    }
  }

  #session(sessionId: string): SessionState {
    let session = this.#sessions.get(sessionId);
    if (!session) {
      session = { lastActivity: Date.now(), queue: [], streams: new Map() };
      this.#sessions.set(sessionId, session);
    }
    session.lastActivity = Date.now();
    return session;
  }

  #stream(sessionId: string, streamId: string): { next: number; events: LoggedEvent[] } {
    const { streams } = this.#session(sessionId);
    let stream = streams.get(streamId);
    if (!stream) {
      // Position 0 is the priming event every stream starts with; messages start at 1.
      stream = { next: 1, events: [] };
      streams.set(streamId, stream);
    }
    return stream;
  }
}
