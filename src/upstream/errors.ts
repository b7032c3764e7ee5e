// What can go wrong when the gateway talks to an upstream, in the gateway's own terms: the rest of
// the code maps these to JSON-RPC errors without knowing anything about the client SDK.

/** The upstream answered with a JSON-RPC error: passed on with its code, message and data. */
export class UpstreamRpcError extends Error {
  constructor(
    readonly server: string,
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'UpstreamRpcError';
  }
}

/** The upstream is not connected (starting, crashed, stopped) or the connection broke mid-request. */
export class UpstreamUnavailableError extends Error {
  constructor(
    readonly server: string,
    readonly reason: string,
  ) {
    super(`upstream "${server}" is unavailable: ${reason}`);
    this.name = 'UpstreamUnavailableError';
  }
}

/** The upstream did not answer in time; it has been sent a cancellation. */
export class UpstreamTimeoutError extends Error {
  constructor(
    readonly server: string,
    readonly method: string,
    readonly timeoutMs: number,
  ) {
    super(`upstream "${server}" did not answer ${method} within ${timeoutMs} ms`);
    this.name = 'UpstreamTimeoutError';
  }
}

/** The client cancelled the request (notifications/cancelled or the gateway is shutting down). */
export class UpstreamCancelledError extends Error {
  constructor(
    readonly server: string,
    readonly method: string,
  ) {
    super(`request ${method} to upstream "${server}" was cancelled`);
    this.name = 'UpstreamCancelledError';
  }
}
