// One Server-Sent Events response. Knows the wire format and whether the client is still there;
// nothing about MCP.

import type { Responder } from '../responder.js';

const encoder = new TextEncoder();

export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  // Reverse proxies that buffer responses (nginx) would hold events back until the stream ends.
  'x-accel-buffering': 'no',
} as const;

export class SseStream<R = Response> {
  /** What the responder made of the stream: a Response for Hono, nothing for the node:http fast path. */
  readonly response: R;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #closed = false;
  readonly #onClose = new Set<() => void>();

  /** `respond` makes the HTTP response (responder.ts); without one, a plain Response (tests). */
  constructor(respond: Responder<R> = ((body, status, headers) => new Response(body, { status, headers })) as Responder<R>) {
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      // The client went away: nothing more can be written, whatever the producer thinks.
      cancel: () => this.#markClosed(),
    });
    this.response = respond(body, 200, SSE_HEADERS);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Registers a callback for when the stream ends, by close() or because the client left. */
  onClose(callback: () => void): void {
    if (this.#closed) callback();
    else this.#onClose.add(callback);
  }

  /** A message event; `data` must be one line (JSON.stringify output is). */
  send(id: string | undefined, data: string): void {
    this.#write(`event: message\n${id === undefined ? '' : `id: ${id}\n`}data: ${data}\n\n`);
  }

  /** A named event other than `message`: the 2024-11-05 transport's `endpoint`. One line of data. */
  event(type: string, data: string): void {
    this.#write(`event: ${type}\ndata: ${data}\n\n`);
  }

  /**
   * The priming event of the 2025-11-25 transport: an id with empty data, which a client records
   * as its Last-Event-ID without dispatching anything, and how long to wait before reconnecting.
   */
  prime(id: string, retryMs: number): void {
    this.#write(`id: ${id}\nretry: ${retryMs}\ndata: \n\n`);
  }

  /** A comment line: keeps idle connections (and the proxies in between) from timing out. */
  comment(text: string): void {
    this.#write(`: ${text}\n\n`);
  }

  close(): void {
    if (this.#closed) return;
    try {
      this.#controller?.close();
    } catch {
      // Already errored or cancelled by the client.
    }
    this.#markClosed();
  }

  #write(chunk: string): void {
    if (this.#closed || !this.#controller) return;
    try {
      this.#controller.enqueue(encoder.encode(chunk));
    } catch {
      this.#markClosed();
    }
  }

  #markClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const callback of this.#onClose) callback();
    this.#onClose.clear();
  }
}
