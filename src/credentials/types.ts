// Per-user upstream credentials: what the gateway presents to an upstream on behalf of one caller,
// so that the upstream's own permissions and audit log see that person, not a service account.
// The client's token is never what is presented (MCP security guidance: no token passthrough); a
// source turns the caller into a credential made for the upstream.
import type { Principal } from '../auth/principal.js';

/** How a server's credentials are obtained (config `mcpServers.<name>.credentials`). */
export type CredentialMode = 'tokenExchange' | 'perUser' | 'connection';

export interface UpstreamCredential {
  /** For an HTTP upstream: sent with every request of the caller's connection. */
  readonly headers: Readonly<Record<string, string>>;
  /** For a stdio upstream: set in the environment of the caller's own process. */
  readonly env: Readonly<Record<string, string>>;
  /** When to resolve it again (ms since the epoch); `Infinity`: as long as the source does not change. */
  readonly expiresAt: number;
  /** Whether it was withdrawn before expiresAt (the person disconnected): resolved again before the next request. */
  readonly withdrawn?: () => boolean;
}

export interface CredentialSource {
  readonly mode: CredentialMode;
  /**
   * The caller's credential for the upstream. Throws CredentialMissingError (nothing for this
   * caller), CredentialRefusedError (the identity provider said no) or CredentialUnavailableError
   * (the source cannot be reached or answered nonsense); never with a secret in the message.
   */
  resolve(principal: Principal): Promise<UpstreamCredential>;
}

/** A server's per-user credentials, as the config in force sets them. */
export interface ServerCredentials {
  readonly source: CredentialSource;
  /** A caller without one: the server left out of their lists, or listed and answered with the error. */
  readonly whenMissing: 'hide' | 'error';
}
