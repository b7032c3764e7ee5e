// credentials.connection's shared parts: the store of people's connections (memory, or the
// sessions' Redis under `{keyPrefix}connections:`, opened on first use so a gateway without such a
// server opens no connection for it), the sealer of what it keeps, the connectors by server, and
// the disconnects every replica must know of at once (connections/withdrawals.ts).
import { randomBytes } from 'node:crypto';
import type { Config } from '../config/schema.js';
import { Connectors } from '../connections/connectors.js';
import type { ConnectionEvent } from '../connections/upstream-connector.js';
import { ConnectionWithdrawals, WITHDRAWN_TOPIC } from '../connections/withdrawals.js';
import type { ServerLists } from '../gateway/catalogue/catalog-view.js';
import type { AskedSessions } from '../gateway/gateway-types.js';
import type { ListsShelf } from '../gateway/isolation/unlisted-servers.js';
import { TokenSealer } from '../credentials/token-sealing.js';
import type { Bus } from '../session/bus.js';
import { createKeyValueStore } from '../session/create-key-value.js';

export interface ConnectionsSide {
  readonly connectors: Connectors;
  /** Disconnects, heard from every replica: a session holding the person's token asks again. */
  readonly withdrawals: ConnectionWithdrawals;
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

export interface ConnectionsSideOptions {
  /** Carries a disconnect to every replica. */
  readonly bus: Bus;
  /** What happens to people's connections: the audit trail, the metrics. */
  readonly onEvent?: (event: ConnectionEvent) => void;
  /** Connect links' life (tests make it short). */
  readonly linkSeconds?: number | undefined;
  readonly onBusError?: (error: unknown) => void;
}

export function connectionsSide(config: Config, { bus, onEvent, linkSeconds, onBusError }: ConnectionsSideOptions): ConnectionsSide {
  const store = createKeyValueStore(config.sessions, 'connections', { lazy: true });
  const withdrawals = new ConnectionWithdrawals();
  const stopHearing = bus.on(WITHDRAWN_TOPIC, ({ person }) => {
    if (typeof person === 'string') withdrawals.note(person);
  });
  const withdraw = (event: ConnectionEvent) => {
    if (event.event !== 'disconnected') return;
    // Here at once, before the page answers; the other replicas as soon as the bus carries it.
    const person = ConnectionWithdrawals.key(event.server, event.sub);
    withdrawals.note(person);
    bus.broadcast(WITHDRAWN_TOPIC, { person }).catch((error: unknown) => onBusError?.(error));
  };
  // Connections are credentials: sealed with sessions.credentialKey (the config requires it with
  // Redis, so every replica opens them), else a key of this process (memory: nothing outlives it).
  const sealer = new TokenSealer(config.sessions.credentialKey ?? randomBytes(32).toString('base64url'), 'upstream-connections');
  const connectors = new Connectors({
    store,
    sealer,
    publicOrigin: new URL(config.server.publicUrl).origin,
    onEvent: (event) => {
      withdraw(event);
      onEvent?.(event);
    },
    ...(linkSeconds !== undefined && { linkSeconds }),
  });
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
  return {
    connectors,
    withdrawals,
    lastLists,
    askedSessions,
    close: () => {
      stopHearing();
      return store.close();
    },
  };
}
