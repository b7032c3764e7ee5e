// What can go wrong when the gateway talks to an upstream, in the gateway's own terms: the rest of
// the code maps these to JSON-RPC errors without knowing anything about the client SDK.
import { catalogueError, ERRORS, type ErrorName } from '../protocol/error-catalogue.js';
import type { BearerChallenge } from './auth-challenge.js';

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

/**
 * An error the gateway raises in an upstream's name (a method its era lacks, an answer that is not
 * a result), from the catalogue, so that it travels like one the upstream sent.
 */
export function upstreamError<N extends ErrorName>(server: string, name: N, ...args: Parameters<(typeof ERRORS)[N]['message']>): UpstreamRpcError {
  const { code, message } = catalogueError(name, ...args);
  return new UpstreamRpcError(server, code, message);
}

/** The upstream is not connected (starting, crashed, stopped) or the connection broke mid-request. */
export class UpstreamUnavailableError extends Error {
  constructor(
    readonly server: string,
    readonly reason: string,
  ) {
    super(ERRORS.UpstreamUnavailable.message(server, reason));
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
    super(ERRORS.RequestTimeout.message(server, method, timeoutMs));
    this.name = 'UpstreamTimeoutError';
  }
}

/** The client cancelled the request (notifications/cancelled or the gateway is shutting down). */
export class UpstreamCancelledError extends Error {
  constructor(
    readonly server: string,
    readonly method: string,
  ) {
    super(ERRORS.RequestCancelled.message(`request ${method} to upstream "${server}"`));
    this.name = 'UpstreamCancelledError';
  }
}

/**
 * The upstream answered 401 or 403 to the credentials the gateway sent on the caller's behalf. The
 * message carries what its challenge says, so the caller learns why and where to look, e.g.
 * `upstream "github" refused the gateway's credentials (401 invalid_token: token expired); its
 * authorization is described at https://api.example/.well-known/oauth-protected-resource`.
 */
export class UpstreamAuthChallengeError extends Error {
  /** The message without the server's name, for readers that name it already (a status row, /readyz). */
  readonly reason: string;

  constructor(
    readonly server: string,
    readonly status: number,
    /** From its WWW-Authenticate header (auth-challenge.ts); undefined when it sent none. */
    readonly challenge: BearerChallenge | undefined,
  ) {
    super(authChallengeMessage(server, status, challenge));
    // The catalogue's message names the server first (`upstream "x" refused ...`).
    const named = `upstream "${server}" `;
    this.reason = this.message.startsWith(named) ? this.message.slice(named.length) : this.message;
    this.name = 'UpstreamAuthChallengeError';
  }
}

// The upstream's words reach the client and the logs: printable, and not a page long.
const MAX_QUOTED = 200;
const shown = (text: string) => {
  const printable = text.replace(/[^\x20-\x7e\u00a0-\uffff]/g, '');
  return printable.length > MAX_QUOTED ? `${printable.slice(0, MAX_QUOTED)}...` : printable;
};

function authChallengeMessage(server: string, status: number, challenge: BearerChallenge | undefined): string {
  let why = String(status);
  if (challenge?.error) why += ` ${shown(challenge.error)}`;
  if (challenge?.errorDescription) why += `: ${shown(challenge.errorDescription)}`;
  const scope = challenge?.scope ? shown(challenge.scope.join(' ')) : undefined;
  const resourceMetadata = challenge?.resourceMetadata ? shown(challenge.resourceMetadata) : undefined;
  return ERRORS.UpstreamCredentialChallenged.message(server, why, scope, resourceMetadata);
}
