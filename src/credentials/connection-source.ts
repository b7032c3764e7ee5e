// credentials.connection: the person's own token at the upstream, from the connection they made
// (src/connections/). Without one, or with one that must be renewed, the caller gets a
// ConnectionRequiredError carrying a connect link made for them, which each era turns into its way
// of asking (gateway/isolation, gateway/errors.ts).
import type { UpstreamConnector } from '../connections/upstream-connector.js';
import { ConnectionNeededError } from '../connections/upstream-connector.js';
import type { ConnectionWithdrawals } from '../connections/withdrawals.js';
import { ConnectionRequiredError } from './errors.js';
import type { CredentialSource } from './types.js';

/** A token is reused at most this long, never past the time its connection refreshes it, and not after a disconnect. */
const REUSE_MS = 30_000;

export function connectionSource(connector: UpstreamConnector, withdrawals: ConnectionWithdrawals): CredentialSource {
  return {
    mode: 'connection',
    async resolve(principal) {
      const resolvedAt = Date.now();
      let token: string;
      let reuseUntil: number | undefined;
      try {
        ({ accessToken: token, reuseUntil } = await connector.credential(principal.sub));
      } catch (error) {
        if (!(error instanceof ConnectionNeededError)) throw error;
        const link = await connector.connectLink(principal.sub);
        throw new ConnectionRequiredError(connector.server, error.reason, link.url, link.elicitationId);
      }
      return {
        headers: { Authorization: `Bearer ${token}` },
        env: {},
        expiresAt: Math.min(resolvedAt + REUSE_MS, reuseUntil ?? Infinity),
        withdrawn: () => withdrawals.since(connector.server, principal.sub, resolvedAt),
      };
    },
  };
}
