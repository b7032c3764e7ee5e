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
