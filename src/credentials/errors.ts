// Why a caller has no credential for an upstream, in words for the person who meets them: the
// server, what is missing or who refused, never a token, a secret or a file's content.
import { ERRORS } from '../protocol/error-catalogue.js';

/** The caller has no credential for the server (no secret file, no token to exchange). */
export class CredentialMissingError extends Error {
  constructor(
    readonly server: string,
    /** What is missing, e.g. `no secret named "alice" in mcpServers.github.credentials.perUser.directory`. */
    readonly detail: string,
  ) {
    super(ERRORS.UpstreamCredential.message(server, detail));
    this.name = 'CredentialMissingError';
  }
}

/** The identity provider refused to exchange the caller's token (RFC 6749 section 5.2 error). */
export class CredentialRefusedError extends Error {
  constructor(
    readonly server: string,
    /** The provider's `error` code, e.g. `invalid_grant`, `invalid_target`, `access_denied`. */
    readonly error: string,
    readonly description: string | undefined,
  ) {
    super(ERRORS.UpstreamCredentialRefused.message(server, error, description));
    this.name = 'CredentialRefusedError';
  }
}

/** The credential source cannot be reached or answered what is not a credential: an outage, not a refusal. */
export class CredentialUnavailableError extends Error {
  constructor(
    readonly server: string,
    readonly reason: string,
  ) {
    super(ERRORS.UpstreamCredentialUnavailable.message(server, reason));
    this.name = 'CredentialUnavailableError';
  }
}

/**
 * The caller has not connected their own account on the server (credentials.connection), or their
 * connection must be renewed: they are to open `connectUrl`, a link made for them alone. Each era
 * turns this into its own way of asking (a URL elicitation, or a result with the link).
 */
export class ConnectionRequiredError extends CredentialMissingError {
  constructor(
    server: string,
    readonly reason: 'not-connected' | 'needs-reconnect',
    readonly connectUrl: string,
    /** Names this request to connect; the completion notification carries it. */
    readonly elicitationId: string,
  ) {
    super(
      server,
      reason === 'not-connected'
        ? `connect your account on ${server} first: open ${connectUrl}`
        : `your connection to ${server} has expired; connect again: open ${connectUrl}`,
    );
    this.name = 'ConnectionRequiredError';
  }
}
