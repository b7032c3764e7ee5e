// Reads a raw SSE response event by event, so tests can see ids, priming events and exactly
// which stream carried which message.
import { MCP_ACCEPT } from './raw-http.js';

export interface SseEvent {
  readonly id: string | undefined;
  /** The `event:` field; undefined means the default, `message`. */
  readonly event: string | undefined;
  readonly data: string;
  /** The parsed JSON of a message event's data, undefined for a priming event (empty data) or another event type. */
  readonly message: Record<string, unknown> | undefined;
}

export interface SseConnection {
  readonly status: number;
  readonly contentType: string | null;
  /** The next event, or undefined when the stream ended; rejects after timeoutMs. */
  next(timeoutMs?: number): Promise<SseEvent | undefined>;
  /** Drops the connection, as a client whose network fails would. */
  abort(): void;
}

export async function openSse(
  url: string,
  init: { method?: 'GET' | 'POST'; sessionId?: string; lastEventId?: string; body?: unknown; headers?: Record<string, string> },
): Promise<SseConnection> {
  const controller = new AbortController();
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    signal: controller.signal,
    headers: {
      accept: init.method === 'POST' ? MCP_ACCEPT : 'text/event-stream',
      ...(init.sessionId !== undefined && { 'mcp-session-id': init.sessionId }),
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
      ...(init.lastEventId !== undefined && { 'last-event-id': init.lastEventId }),
      ...init.headers,
    },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const pending: SseEvent[] = [];
  let ended = false;

  async function fill(): Promise<void> {
    if (!reader) {
      ended = true;
      return;
    }
    const { done, value } = await reader.read();
    if (done) {
      ended = true;
      return;
    }
    buffer += decoder.decode(value, { stream: true });
    let boundary: number;
    while ((boundary = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary + 2);
      let id: string | undefined;
      let event: string | undefined;
      const data: string[] = [];
      let hasData = false;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') id = value;
        if (field === 'event') event = value;
        if (field === 'data') {
          hasData = true;
          data.push(value);
        }
      }
      if (!hasData && id === undefined) continue;
      const joined = data.join('\n');
      const isMessage = event === undefined || event === 'message';
      pending.push({ id, event, data: joined, message: joined === '' || !isMessage ? undefined : (JSON.parse(joined) as Record<string, unknown>) });
    }
  }

  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    async next(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (pending.length === 0 && !ended) {
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw new Error(`no SSE event within ${timeoutMs} ms`);
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          fill(),
          new Promise<void>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no SSE event within ${timeoutMs} ms`)), remaining);
          }),
        ]).finally(() => clearTimeout(timer));
      }
      return pending.shift();
    },
    abort() {
      controller.abort();
    },
  };
}
