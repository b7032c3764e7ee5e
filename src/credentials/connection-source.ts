// credentials.connection: the person's own token at the upstream, from the connection they made
// (src/connections/). Without one, or with one that must be renewed, the caller gets a
// ConnectionRequiredError carrying a connect link made for them, which each era turns into its way
// of asking (gateway/isolation, gateway/errors.ts).
import type { UpstreamConnector } from '../connections/upstream-connector.js';
import { ConnectionNeededError } from '../connections/upstream-connector.js';
import { ConnectionRequiredError } from './errors.js';
import type { CredentialSource } from './types.js';

/** A token is used until this long before the connection's own refresh would replace it. */
const REUSE_MS = 30_000;

export function connectionSource(connector: UpstreamConnector): CredentialSource {
  return {
    mode: 'connection',
    async resolve(principal) {
      let token: string;
      try {
        token = await connector.accessToken(principal.sub);
      } catch (error) {
        if (!(error instanceof ConnectionNeededError)) throw error;
        const link = await connector.connectLink(principal.sub);
        throw new ConnectionRequiredError(connector.server, error.reason, link.url, link.elicitationId);
      }
      return { headers: { Authorization: `Bearer ${token}` }, env: {}, expiresAt: Date.now() + REUSE_MS };
    },
  };
}
