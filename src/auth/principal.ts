// Who is making a request, as far as the gateway cares: the token's subject, its scopes and its
// claims. Without auth there is no principal, and sessions, policy and limits key on the client
// address instead.

import type { AccessToken } from './access-token.js';

export interface Principal {
  /** The token's `sub`: sessions are bound to it, limits and audit lines are keyed by it. */
  readonly sub: string;
  readonly scopes: readonly string[];
  readonly claims: Readonly<Record<string, unknown>>;
  /**
   * The token the principal was read from, for exchanging it at an identity provider (per-user
   * upstream credentials); absent where there was no token (a principal forwarded between replicas).
   */
  readonly token?: AccessToken;
}
