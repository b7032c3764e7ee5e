// When an exchanged token is renewed: shortly before it expires, never at the last moment. A token
// handed out now is sent on requests that take time to arrive and run, to an upstream whose clock
// may be a little ahead of ours; presented at the edge of its life, it would be refused there, and
// the caller would see an upstream 401 that no retry of theirs can explain. 30 seconds covers
// ordinary clock drift and a slow request. A short-lived token (a provider issuing 1-minute tokens,
// the 2-second ones of the tests) renews at 90% of its life instead, so it is still reused for most
// of it rather than exchanged on every call. The lifetime is counted from before the request was
// sent, so the time the exchange took is on the safe side too.

export const MAX_RENEWAL_MARGIN_MS = 30_000;
export const RENEWAL_MARGIN_SHARE = 0.1;

/** When a token issued at `issuedAt` (ms since the epoch) for `lifetimeMs` is due for renewal. */
export function renewalTime(issuedAt: number, lifetimeMs: number): number {
  return issuedAt + lifetimeMs - Math.min(MAX_RENEWAL_MARGIN_MS, lifetimeMs * RENEWAL_MARGIN_SHARE);
}
