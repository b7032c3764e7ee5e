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

export function openStandaloneStream(options: StandaloneStreamOptions): Response {
  const resumed = options.lastEventId === undefined ? undefined : parseEventId(options.lastEventId);
  const streamId = resumed?.streamId ?? newStreamId('get');
  const sse = new SseStream(options.respond);
  options.openStreams.add(options.sessionId, sse);
  if (options.endpoint !== undefined) sse.event('endpoint', options.endpoint);
  if (options.onClose) sse.onClose(options.onClose);
  void pump(options, sse, streamId, resumed?.position).catch((error: unknown) => {
    options.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'SSE stream ended by an error');
    sse.close();
  });
  return sse.response;
}

async function pump(options: StandaloneStreamOptions, sse: SseStream, streamId: string, resumeAfter: string | undefined): Promise<void> {
  const { events, sessionId } = options;
  const isPostStream = streamKind(streamId) === 'post';
  let woken = true;
  let wake: (() => void) | undefined;
  const unwatch = events.watch(sessionId, () => {
    woken = true;
    wake?.();
  });
  sse.onClose(() => {
    unwatch();
    wake?.();
  });

  if (resumeAfter === undefined && options.prime) sse.prime(`${streamId}.0`, RECONNECT_DELAY_MS);
  let position = resumeAfter;
  if (position !== undefined && !isPostStream) {
    // What this stream had been sent after the client's last event: replayed once, then the queue.
    const missed = await events.readAfter(sessionId, streamId, position);
    if (await sendAll(missed)) return;
  }

  while (!sse.closed) {
    woken = false;
    const batch = isPostStream
      ? await events.readAfter(sessionId, streamId, position ?? '0')
      : await events.take(sessionId, streamId, TAKE_BATCH);
    if (await sendAll(batch)) return;
    if (woken || batch.length === TAKE_BATCH) continue;
    const timedOut = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(true), options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS);
      wake = () => {
        clearTimeout(timer);
        resolve(false);
      };
    });
    wake = undefined;
    if (timedOut) sse.comment('keep-alive');
  }

  /** Sends events in order; true when the stream is finished (a POST stream's response went out). */
  async function sendAll(batch: readonly StreamEvent[]): Promise<boolean> {
    for (const event of batch) {
      position = parseEventId(event.eventId)?.position ?? position;
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
