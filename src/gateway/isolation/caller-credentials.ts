// The credential of one caller's own upstream connection (per-user credentials): resolved before
// the connection is made, and again before a request once it has expired, from the principal of
// the request at hand, whose token is the freshest the gateway has. The connection reads the
// current value for each HTTP request it sends (upstream/types.ts, CallerCredential).
import type { Principal } from '../../auth/principal.js';
import { CredentialMissingError, CredentialRefusedError } from '../../credentials/errors.js';
import type { CredentialMode, CredentialSource, UpstreamCredential } from '../../credentials/types.js';

export type { ServerCredentials } from '../../credentials/types.js';
import type { CallerCredential } from '../../upstream/types.js';

/** What a request that reached an upstream presented there, for the audit line. */
export type CredentialUse = CredentialMode | 'config';

export class ConnectionCredential {
  #current: UpstreamCredential;

  private constructor(
    private readonly source: CredentialSource,
    first: UpstreamCredential,
    /** Whose credential it is: a withdrawn one is resolved again for them, also on a request forwarded without a token. */
    private readonly owner: Principal,
  ) {
    this.#current = first;
  }

  /** Throws what the source throws: the connection is not made without a credential. */
  static async resolve(source: CredentialSource, principal: Principal | undefined, server: string): Promise<ConnectionCredential> {
    const owner = requirePrincipal(principal, server);
    return new ConnectionCredential(source, await source.resolve(owner), owner);
  }

  /** For the connection, on every HTTP request and when its process starts. */
  current(): CallerCredential {
    return this.#current;
  }

  /**
   * Renews an expired credential with the request's principal. A request without one (forwarded
   * from another replica, which sends no token) goes out with what there is: the upstream decides.
   * A withdrawn credential (the person disconnected) is never sent again: resolved anew, which asks
   * the person to connect.
   */
  async refresh(principal: Principal | undefined): Promise<void> {
    if (this.#current.withdrawn?.() === true) {
      this.#current = await this.source.resolve(principal ?? this.owner);
      return;
    }
    if (Date.now() < this.#current.expiresAt || principal === undefined) return;
    this.#current = await this.source.resolve(principal);
  }
}

/** A caller without a credential for the server, as whenMissing sees it: none, or the provider said no. */
export function isMissingCredential(error: unknown): error is CredentialMissingError | CredentialRefusedError {
  return error instanceof CredentialMissingError || error instanceof CredentialRefusedError;
}

function requirePrincipal(principal: Principal | undefined, server: string): Principal {
  if (principal === undefined) throw new CredentialMissingError(server, 'the request carries no identity (a token) to find your credential by');
  return principal;
}
