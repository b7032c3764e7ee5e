// credentials.connection's shared parts: the store of people's connections (memory, or the
// sessions' Redis under `{keyPrefix}connections:`, opened on first use so a gateway without such a
// server opens no connection for it), the sealer of what it keeps, and the connectors by server.
import { randomBytes } from 'node:crypto';
import type { Config } from '../config/schema.js';
import { Connectors } from '../connections/connectors.js';
import type { ConnectionEvent } from '../connections/upstream-connector.js';
import type { ServerLists } from '../gateway/catalogue/catalog-view.js';
import type { AskedSessions } from '../gateway/gateway-types.js';
import type { ListsShelf } from '../gateway/isolation/unlisted-servers.js';
import { TokenSealer } from '../credentials/token-sealing.js';
import { createKeyValueStore } from '../session/create-key-value.js';

export interface ConnectionsSide {
  readonly connectors: Connectors;
  /** The last lists of servers with per-user credentials, for every replica (gateway/isolation/unlisted-servers.ts). */
  readonly lastLists: ListsShelf;
  /** Which session each connect link went to as a URL elicitation, for every replica. */
  readonly askedSessions: AskedSessions;
  close(): Promise<void>;
}

/** As long as a connect link lives (connections/upstream-connector.ts). */
const ASKED_SECONDS = 600;
/** Kept a month: a server nobody has listed for that long shows nothing to those who cannot list it. */
const LAST_LISTS_SECONDS = 30 * 24 * 3600;

/** `onEvent`: what happens to people's connections (the audit trail, the metrics); `linkSeconds`: connect links' life (tests). */
export function connectionsSide(config: Config, onEvent?: (event: ConnectionEvent) => void, { linkSeconds }: { readonly linkSeconds?: number | undefined } = {}): ConnectionsSide {
  const store = createKeyValueStore(config.sessions, 'connections', { lazy: true });
  // Connections are credentials: sealed with sessions.credentialKey (the config requires it with
  // Redis, so every replica opens them), else a key of this process (memory: nothing outlives it).
  const sealer = new TokenSealer(config.sessions.credentialKey ?? randomBytes(32).toString('base64url'), 'upstream-connections');
  const connectors = new Connectors({ store, sealer, publicOrigin: new URL(config.server.publicUrl).origin, ...(onEvent && { onEvent }), ...(linkSeconds !== undefined && { linkSeconds }) });
  const lastLists: ListsShelf = {
    load: async (server) => {
      const text = await store.get(`last-lists:${server}`);
      return text === undefined ? undefined : (JSON.parse(text) as ServerLists);
    },
    save: (server, lists) => store.set(`last-lists:${server}`, JSON.stringify(lists), LAST_LISTS_SECONDS),
  };
  const askedSessions: AskedSessions = {
    remember: (elicitationId, sessionId) => store.set(`asked:${elicitationId}`, sessionId, ASKED_SECONDS),
    sessionOf: (elicitationId) => store.get(`asked:${elicitationId}`),
  };
  return { connectors, lastLists, askedSessions, close: () => store.close() };
}
