// A GET stream: the session's messages that belong to no request, taken from its queue (each by
// exactly one of its streams), or, with Last-Event-ID, the rest of a stream the client lost: a
// standalone one is replayed and then carries on; a POST's is replayed up to its response.
import type { Logger } from '../../observe/logger.js';
import { parseEventId, type EventMessage, type SessionEvents, type StreamEvent } from '../../session/events.js';
import type { OpenStreams } from './open-streams.js';
import type { Responder } from '../responder.js';
import { SseStream } from './sse-stream.js';
import { newStreamId, RECONNECT_DELAY_MS, streamKind } from './stream-ids.js';

export interface StandaloneStreamOptions {
  readonly sessionId: string;
  readonly lastEventId: string | undefined;
  readonly events: SessionEvents;
  readonly openStreams: OpenStreams;
  /** Whether a queued message may go to this session now (log levels). */
  readonly admits: (message: EventMessage) => Promise<boolean>;
  readonly prime: boolean;
  /** Makes the HTTP response (responder.ts). */
  readonly respond: Responder;
  /** How often an idle stream gets a comment, so proxies keep it open. */
  readonly keepAliveMs?: number;
  readonly logger: Logger;
  /** The 2024-11-05 HTTP+SSE transport: the stream's first event, `endpoint`, names where the client POSTs. */
  readonly endpoint?: string;
  /** Called once when the stream ends: the client left, the session was closed, or shutdown. */
  readonly onClose?: () => void;
}

const TAKE_BATCH = 100;
const DEFAULT_KEEP_ALIVE_MS = 25_000;

/**
 * Opens the stream once its first read of the session's queue (or log) has succeeded: a store that
 * does not answer rejects here, before any status went out, so the client gets 503 and retries
 * rather than a stream that ends at once.
 */
export async function openStandaloneStream(options: StandaloneStreamOptions): Promise<Response> {
  const resumed = options.lastEventId === undefined ? undefined : parseEventId(options.lastEventId);
  const streamId = resumed?.streamId ?? newStreamId('get');
  const reader = new StreamReader(options, streamId, resumed?.position);
  let first: StreamEvent[];
  try {
    first = await reader.first();
  } catch (error) {
    reader.stop();
    throw error;
  }
  const sse = new SseStream(options.respond);
  options.openStreams.add(options.sessionId, sse);
  if (options.endpoint !== undefined) sse.event('endpoint', options.endpoint);
  if (options.onClose) sse.onClose(options.onClose);
  void pump(options, sse, reader, first).catch((error: unknown) => {
    options.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'SSE stream ended by an error');
    sse.close();
  });
  return sse.response;
}

/** Where a stream's events come from: the session's queue, or (resuming) the stream's own log. */
class StreamReader {
  readonly isPostStream: boolean;
  /** Set by a wake-up: something new may be waiting. */
  woken = true;
  #wake: (() => void) | undefined;
  readonly #unwatch: () => void;
  position: string | undefined;

  constructor(
    private readonly options: StandaloneStreamOptions,
    readonly streamId: string,
    readonly resumeAfter: string | undefined,
  ) {
    this.isPostStream = streamKind(streamId) === 'post';
    this.position = resumeAfter;
    // Watching first: a message that comes while the first read is under way still wakes the stream.
    this.#unwatch = options.events.watch(options.sessionId, () => {
      this.woken = true;
      this.#wake?.();
    });
  }

  /** What the stream sends first: what the client missed (Last-Event-ID), else the queue's first batch. */
  first(): Promise<StreamEvent[]> {
    if (this.position !== undefined && !this.isPostStream) return this.options.events.readAfter(this.options.sessionId, this.streamId, this.position);
    return this.next();
  }

  next(): Promise<StreamEvent[]> {
    this.woken = false;
    const { events, sessionId } = this.options;
    return this.isPostStream ? events.readAfter(sessionId, this.streamId, this.position ?? '0') : events.take(sessionId, this.streamId, TAKE_BATCH);
  }

  /** Resolves on a wake-up (false) or after `ms` (true). */
  waitForWake(ms: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.#wake = undefined;
        resolve(true);
      }, ms);
      this.#wake = () => {
        this.#wake = undefined;
        clearTimeout(timer);
        resolve(false);
      };
    });
  }

  stop(): void {
    this.#unwatch();
    this.#wake?.();
  }
}

async function pump(options: StandaloneStreamOptions, sse: SseStream, reader: StreamReader, first: StreamEvent[]): Promise<void> {
  sse.onClose(() => reader.stop());
  const { isPostStream, streamId } = reader;
  if (reader.resumeAfter === undefined && options.prime) sse.prime(`${streamId}.0`, RECONNECT_DELAY_MS);
  // A resumed standalone stream's first batch is the replay; the queue comes next, at once.
  const replayed = reader.resumeAfter !== undefined && !isPostStream;
  if (await sendAll(first)) return;
  if (replayed) reader.woken = true;
  let batchSize = replayed ? 0 : first.length;

  while (!sse.closed) {
    if (!reader.woken && batchSize < TAKE_BATCH) {
      const timedOut = await reader.waitForWake(options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS);
      if (sse.closed) return;
      // Then a read all the same: a wake-up published while the subscriber was reconnecting is lost.
      if (timedOut) sse.comment('keep-alive');
    }
    const batch = await reader.next();
    if (await sendAll(batch)) return;
    batchSize = batch.length;
  }

  /** Sends events in order; true when the stream is finished (a POST stream's response went out). */
  async function sendAll(batch: readonly StreamEvent[]): Promise<boolean> {
    for (const event of batch) {
      reader.position = parseEventId(event.eventId)?.position ?? reader.position;
      if (await options.admits(event.message)) sse.send(event.eventId, JSON.stringify(event.message));
      if (isPostStream && isResponse(event.message)) {
        sse.close();
        return true;
      }
    }
    return sse.closed;
  }
}

function isResponse(message: EventMessage): boolean {
  return !('method' in message) && ('result' in message || 'error' in message);
}
