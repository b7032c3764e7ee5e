// Every SSE stream this replica holds open, so that shutdown can end them (they never end by
// themselves) and a deleted session's streams close with it.
import type { SseStream } from './sse-stream.js';

export class OpenStreams {
  readonly #bySession = new Map<string, Set<SseStream<unknown>>>();

  add(sessionId: string, stream: SseStream<unknown>): void {
    let streams = this.#bySession.get(sessionId);
    if (!streams) {
      streams = new Set();
      this.#bySession.set(sessionId, streams);
    }
    streams.add(stream);
    stream.onClose(() => {
      streams.delete(stream);
      if (streams.size === 0 && this.#bySession.get(sessionId) === streams) this.#bySession.delete(sessionId);
    });
  }

  get size(): number {
    let count = 0;
    for (const streams of this.#bySession.values()) count += streams.size;
    return count;
  }

  closeSession(sessionId: string): void {
    for (const stream of [...(this.#bySession.get(sessionId) ?? [])]) stream.close();
  }

  closeAll(): void {
    for (const sessionId of [...this.#bySession.keys()]) this.closeSession(sessionId);
  }
}
