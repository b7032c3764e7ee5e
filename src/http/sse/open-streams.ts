// Every SSE stream this replica holds open, so that shutdown can end them (they never end by
// themselves) and a deleted session's streams close with it.
import { TransientMap } from '../../support/transient-map.js';
import type { SseStream } from './sse-stream.js';

export class OpenStreams {
  // TransientMaps keyed by a serial, not a Map of Sets: an answer streamed to a POST comes and goes
  // with its call, and a Map or Set would keep the streams it held alive (support/transient-map.ts).
  readonly #bySession = new TransientMap<string, TransientMap<number, SseStream<unknown>>>();
  #lastSerial = 0;

  add(sessionId: string, stream: SseStream<unknown>): void {
    let streams = this.#bySession.get(sessionId);
    if (!streams) {
      streams = new TransientMap();
      this.#bySession.set(sessionId, streams);
    }
    const serial = ++this.#lastSerial;
    streams.set(serial, stream);
    stream.onClose(() => {
      streams.delete(serial);
      if (streams.size === 0 && this.#bySession.get(sessionId) === streams) this.#bySession.delete(sessionId);
    });
  }

  get size(): number {
    let count = 0;
    for (const streams of this.#bySession.values()) count += streams.size;
    return count;
  }

  closeSession(sessionId: string): void {
    for (const stream of [...(this.#bySession.get(sessionId)?.values() ?? [])]) stream.close();
  }

  closeAll(): void {
    for (const sessionId of [...this.#bySession.keys()]) this.closeSession(sessionId);
  }
}
