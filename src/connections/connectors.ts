// The connectors of the servers whose credentials are connections, by server name, made from the
// config in force (a reload that changes a server's block makes a new one; its people's connections
// stay, since they live in the store by server name and person). Shared by the credential source
// (a call needs the person's token) and the HTTP side (connect links, the callback, the page).
import type { ConnectionConfig } from '../config/credentials.js';
import type { TokenSealer } from '../credentials/token-sealing.js';
import type { KeyValueStore } from '../session/key-value.js';
import { UpstreamConnector, type ConnectionEvent } from './upstream-connector.js';

export interface ConnectorsOptions {
  readonly store: KeyValueStore;
  readonly sealer: TokenSealer;
  readonly publicOrigin: string;
  /** Each connection's events, for the audit trail and the metrics. */
  readonly onEvent?: (event: ConnectionEvent) => void;
  /** How long connect links live (default the connector's 10 minutes); tests make it short. */
  readonly linkSeconds?: number;
}

export class Connectors {
  readonly #byServer = new Map<string, { readonly config: ConnectionConfig; readonly url: string; readonly connector: UpstreamConnector }>();

  constructor(private readonly options: ConnectorsOptions) {}

  /** The server's connector, made on first use for this config block. */
  of(server: string, url: string, config: ConnectionConfig): UpstreamConnector {
    const known = this.#byServer.get(server);
    if (known !== undefined && known.config === config && known.url === url) return known.connector;
    const connector = new UpstreamConnector({
      server,
      url,
      store: this.options.store,
      sealer: this.options.sealer,
      publicOrigin: this.options.publicOrigin,
      ...(this.options.linkSeconds !== undefined && { linkSeconds: this.options.linkSeconds }),
      timeoutMs: config.timeoutMs,
      ...(this.options.onEvent && { onEvent: this.options.onEvent }),
      ...(config.scopes !== undefined && { scopes: config.scopes }),
      ...(config.authorizationServer !== undefined && { authorizationServer: config.authorizationServer }),
      ...(config.client !== undefined && { client: { clientId: config.client.clientId, ...(config.client.clientSecret !== undefined && { clientSecret: config.client.clientSecret }) } }),
    });
    this.#byServer.set(server, { config, url, connector });
    return connector;
  }

  /** A server's connector as last made, for the HTTP side (undefined: not a connection server, or not used yet). */
  known(server: string): UpstreamConnector | undefined {
    return this.#byServer.get(server)?.connector;
  }

  /** The server a connect link (`link`) or a pending authorization (`state`) is for, without using it up. */
  async serverOf(kind: 'link' | 'state', id: string): Promise<string | undefined> {
    const key = `${kind}:${id}`;
    const sealed = await this.options.store.get(key);
    const plain = sealed === undefined ? undefined : this.options.sealer.open(sealed, key);
    if (plain === undefined) return undefined;
    const { server } = JSON.parse(plain) as { server?: unknown };
    return typeof server === 'string' ? server : undefined;
  }

  servers(): readonly string[] {
    return [...this.#byServer.keys()];
  }
}
