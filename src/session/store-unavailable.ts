// The one failure of the session adapter that callers act on: the shared store did not answer
// (down, restarting, failing over, loading its data, too slow). It is not a bug of the request, and
// the same request will most likely succeed in a moment, so the HTTP layer answers it with 503 and
// Retry-After rather than a 500 that a client cannot tell from a bug and would not retry.
//
// What a request that failed with it may have done: its store commands ran at most once each (no
// command is queued while Redis is away or resent after a reconnect: redis-connection.ts), and
// the gateway makes its store reads and writes before it forwards anything upstream, so such a
// request was not forwarded. docs/guides/deploying-on-kubernetes.md, "While Redis does not answer", lists the exceptions.

export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';

  constructor(
    /** What the store was asked to do: get, create, update, append, publish, ... */
    readonly operation: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isStoreUnavailable(error: unknown): error is StoreUnavailableError {
  return error instanceof StoreUnavailableError;
}

/** How long a client should wait before it retries a request the store could not serve. */
export const STORE_RETRY_AFTER_SECONDS = 1;
