// "The client gave up on this request" (a 2026 client closed its stream), as the gateway needs it:
// a listener to call once. An AbortSignal says the same, but costs an AbortController (and on
// Node 20 a transferable object) on every request, which the hot path cannot afford for an event
// that almost never happens; the HTTP layer makes one of these from the socket's own close event.
export interface Cancellation {
  /** Calls `listener` once when cancelled (at once if it already is); returns how to stop listening. */
  onCancel(listener: () => void): () => void;
}

/** A Cancellation that someone cancels by hand. */
export class CancelSource implements Cancellation {
  #cancelled = false;
  #listeners: (() => void)[] | undefined;

  get cancelled(): boolean {
    return this.#cancelled;
  }

  cancel(): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    const listeners = this.#listeners ?? [];
    this.#listeners = undefined;
    for (const listener of listeners) listener();
  }

  onCancel(listener: () => void): () => void {
    if (this.#cancelled) {
      listener();
      return () => {};
    }
    (this.#listeners ??= []).push(listener);
    return () => {
      const index = this.#listeners?.indexOf(listener) ?? -1;
      if (index >= 0) this.#listeners?.splice(index, 1);
    };
  }
}
