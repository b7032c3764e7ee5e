// One upstream server's connections: each person's own account there, connected by an
// authorization code flow of Switchboard's (openid-client; PKCE S256, `state` bound to the person
// and the server, RFC 8707 `resource` on the authorization request, the code exchange and every
// refresh), kept per (person, server) sealed in the store, refreshed before it expires by one
// replica at a time, revoked on disconnect.
//
// The connect link a person is given is single-use, short-lived and bound to them: `begin` takes it
// only for the same person signed in in the browser, and `complete` hands the tokens only to the
// person whose `state` it is.
import { randomBytes, randomUUID } from 'node:crypto';
import * as oidc from 'openid-client';
import type { TokenSealer } from '../credentials/token-sealing.js';
import type { KeyValueStore } from '../session/key-value.js';
import { discoverUpstreamAuthorization, UpstreamAuthorizationError, type UpstreamAuthorization } from './authorization-discovery.js';
import { upstreamClient, type UpstreamClient } from './client-registration.js';
import { ConnectionRecords, digest, fresh, RECORD_MAX_SECONDS, recordOf, refreshTime, type ConnectionCounts, type ConnectionRecord } from './connection-records.js';

export { RECORD_MAX_SECONDS, type ConnectionCounts, type ConnectionRecord } from './connection-records.js';

/** What the person's Connections page shows of a connection: never a token. */
export interface ConnectionSummary {
  readonly state: 'connected' | 'needs-reconnect' | 'not-connected';
  readonly scope?: string;
  readonly connectedAt?: number;
  /** Epoch ms of the last call that used it, to the minute (USE_NOTE_MS). */
  readonly lastUsedAt?: number;
}

/** What happened to a connection, for the audit trail and the metrics (compose/connections-side.ts). */
export interface ConnectionEvent {
  readonly server: string;
  readonly sub: string;
  /** `refreshed` and `refresh-failed` (not invalid_grant: the provider did not answer well) feed the metrics; the rest are audited too. */
  readonly event: 'connected' | 'refreshed' | 'refresh-failed' | 'needs-reconnect' | 'disconnected';
  /** Why, for refresh-failed and needs-reconnect: the OAuth error or the failure's message, never a token. */
  readonly reason?: string;
  /** Disconnected: whether the provider was asked to revoke the tokens (it offers revocation). */
  readonly revoked?: boolean;
}

/** The person has no usable connection to the server: they must open a connect link. */
export class ConnectionNeededError extends Error {
  constructor(
    readonly server: string,
    readonly reason: 'not-connected' | 'needs-reconnect',
  ) {
    super(reason === 'not-connected' ? `you have not connected your account on ${server}` : `your connection to ${server} has expired and must be renewed`);
    this.name = 'ConnectionNeededError';
  }
}

/** A connect link or callback that is not this person's, expired, or used. */
export class ConnectRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConnectRefusedError';
  }
}

export interface UpstreamConnectorOptions {
  readonly server: string;
  readonly url: string;
  readonly store: KeyValueStore;
  readonly sealer: TokenSealer;
  /** Switchboard's public origin: connect links and the callback live there. */
  readonly publicOrigin: string;
  readonly scopes?: readonly string[];
  readonly authorizationServer?: string;
  readonly client?: { readonly clientId: string; readonly clientSecret?: string };
  readonly timeoutMs: number;
  readonly now?: () => number;
  /** Each connect, refresh, refresh failure, reconnect needed and disconnect; must not throw. */
  readonly onEvent?: (event: ConnectionEvent) => void;
  /** How long a connect link and a pending authorization live; default 600 s (tests make it short). */
  readonly linkSeconds?: number;
}

export const CONNECT_PATH = '/connections/connect';
export const CONNECT_CALLBACK_PATH = '/connections/callback';
export const CLIENT_METADATA_PATH = '/connections/client-metadata.json';
const LINK_SECONDS = 600;
/**
 * The most a connection is kept without being refreshed: the refresh token's own life when the
 * provider says it (`refresh_expires_in`), else 90 days; without a refresh token, the access
 * token's life. A refresh keeps it again from then on; a connection needing reconnection is kept
 * as long, so the person is told rather than asked as if never connected.
 */
const REFRESH_LOCK_SECONDS = 15;

export class UpstreamConnector {
  readonly server: string;
  readonly #options: UpstreamConnectorOptions;
  #prepared: Promise<{ authorization: UpstreamAuthorization; client: UpstreamClient; configuration: oidc.Configuration }> | undefined;
  readonly #refreshing = new Map<string, Promise<ConnectionRecord>>();
  readonly #records: ConnectionRecords;

  constructor(options: UpstreamConnectorOptions) {
    this.#options = options;
    this.server = options.server;
    this.#records = new ConnectionRecords(options.server, options.store, options.sealer, () => this.#now());
  }

  /**
   * A link for `sub` to open in their browser; single-use, valid 10 minutes. `elicitationId` names
   * the request to connect in the client's eyes; `complete` gives it back for the notification.
   */
  async connectLink(sub: string): Promise<{ readonly url: string; readonly elicitationId: string }> {
    const id = randomBytes(24).toString('base64url');
    const elicitationId = randomUUID();
    await this.#records.sealAndSet(`link:${id}`, { sub, server: this.server, elicitationId }, this.#linkSeconds);
    return { url: `${this.#options.publicOrigin}${CONNECT_PATH}/${id}`, elicitationId };
  }

  /** The browser opened a link: where to send it at the upstream's authorization server. */
  async begin(linkId: string, browserSub: string): Promise<string> {
    // Read, checked, then taken: someone else opening the link cannot use it up.
    const link = await this.#records.openSealed<{ sub: string; server: string; elicitationId: string }>(`link:${linkId}`, false);
    if (link === undefined) throw new ConnectRefusedError('this connect link has expired or was already used; ask for the tool again to get a new one');
    if (link.sub !== browserSub || link.server !== this.server) throw new ConnectRefusedError('this connect link was made for someone else: sign in as the person it was given to');
    if ((await this.#records.openSealed(`link:${linkId}`, true)) === undefined) throw new ConnectRefusedError('this connect link was just used; ask for the tool again to get a new one');
    const { authorization, configuration } = await this.#prepare();
    const state = oidc.randomState();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    await this.#records.sealAndSet(`state:${state}`, { sub: browserSub, server: this.server, codeVerifier, elicitationId: link.elicitationId }, this.#linkSeconds);
    const scopes = this.#options.scopes ?? authorization.scopesSupported;
    return oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: this.#redirectUri,
      response_type: 'code',
      ...(scopes.length > 0 && { scope: scopes.join(' ') }),
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      resource: authorization.resource,
    }).href;
  }

  /** The upstream's authorization server sent the browser back. Returns the connect request's id. */
  async complete(callback: URL, browserSub: string): Promise<{ readonly elicitationId: string }> {
    const state = callback.searchParams.get('state') ?? '';
    type Pending = { sub: string; server: string; codeVerifier: string; elicitationId: string };
    const expired = 'this connection attempt has expired or was already completed; ask for the tool again';
    // Read, checked, then taken (as a link): another person's browser brought here with this
    // callback cannot use up the attempt of the person who started it.
    const seen = await this.#records.openSealed<Pending>(`state:${state}`, false);
    if (seen === undefined || seen.server !== this.server) throw new ConnectRefusedError(expired);
    if (seen.sub !== browserSub) throw new ConnectRefusedError('this connection was started by someone else: it is not completed for you');
    const pending = await this.#records.openSealed<Pending>(`state:${state}`, true);
    if (pending === undefined) throw new ConnectRefusedError(expired);
    const { authorization, configuration } = await this.#prepare();
    const tokens = await oidc.authorizationCodeGrant(configuration, callback, { pkceCodeVerifier: pending.codeVerifier, expectedState: state }, { resource: authorization.resource });
    await this.#records.save(pending.sub, recordOf(tokens, this.#now()), { first: true });
    this.#emit({ server: this.server, sub: pending.sub, event: 'connected' });
    return { elicitationId: pending.elicitationId };
  }

  /** The person's access token for the upstream, refreshed first when it is about to expire. */
  async accessToken(sub: string): Promise<string> {
    return (await this.credential(sub)).accessToken;
  }

  /**
   * The access token and until when it may be reused without asking again (epoch ms): the time
   * this connection refreshes it, so a short-lived token is never reused past its life.
   */
  async credential(sub: string): Promise<{ readonly accessToken: string; readonly reuseUntil: number | undefined }> {
    const record = await this.#records.load(sub);
    if (record === undefined) throw new ConnectionNeededError(this.server, 'not-connected');
    if (record.needsReconnect) throw new ConnectionNeededError(this.server, 'needs-reconnect');
    const usable = fresh(record, this.#now()) ? record : record.refreshToken === undefined ? undefined : await this.#refresh(sub);
    if (usable === undefined) throw new ConnectionNeededError(this.server, 'needs-reconnect');
    this.#records.noteUse(sub);
    return { accessToken: usable.accessToken, reuseUntil: refreshTime(usable) };
  }

  /** What the person's Connections page shows: state, scopes, when connected and last used; no token. */
  async summary(sub: string): Promise<ConnectionSummary> {
    const [record, lastUsedAt] = await Promise.all([this.#records.load(sub), this.#records.lastUsed(sub)]);
    if (record === undefined) return { state: 'not-connected' };
    return {
      state: record.needsReconnect ? 'needs-reconnect' : 'connected',
      ...(record.scope !== undefined && { scope: record.scope }),
      connectedAt: record.connectedAt,
      ...(lastUsedAt !== undefined && { lastUsedAt }),
    };
  }

  /** How many people have a connection here, by state, for the status page (connection-records.ts). */
  counts(): Promise<ConnectionCounts> {
    return this.#records.counts();
  }

  async status(sub: string): Promise<'connected' | 'needs-reconnect' | 'not-connected'> {
    const record = await this.#records.load(sub);
    return record === undefined ? 'not-connected' : record.needsReconnect ? 'needs-reconnect' : 'connected';
  }

  /** Forgets the connection, revoking its tokens at the provider when it offers revocation. */
  async disconnect(sub: string): Promise<void> {
    const record = await this.#records.load(sub);
    await this.#records.delete(sub);
    if (record === undefined) return;
    let revoked = false;
    try {
      const { authorization, configuration } = await this.#prepare();
      if (authorization.server.revocation_endpoint === undefined) return;
      revoked = true;
      for (const token of [record.refreshToken, record.accessToken]) {
        if (token !== undefined && token !== '') await oidc.tokenRevocation(configuration, token).catch(() => {});
      }
    } finally {
      this.#emit({ server: this.server, sub, event: 'disconnected', revoked });
    }
  }

  get #linkSeconds(): number {
    return this.#options.linkSeconds ?? LINK_SECONDS;
  }

  get #redirectUri(): string {
    return `${this.#options.publicOrigin}${CONNECT_CALLBACK_PATH}`;
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  /** One refresh at a time: per process by a shared promise, across replicas by a lock in the store. */
  #refresh(sub: string): Promise<ConnectionRecord> {
    let running = this.#refreshing.get(sub);
    if (running === undefined) {
      running = this.#refreshAcrossReplicas(sub).finally(() => this.#refreshing.delete(sub));
      this.#refreshing.set(sub, running);
    }
    return running;
  }

  async #refreshAcrossReplicas(sub: string): Promise<ConnectionRecord> {
    const lock = `refresh-lock:${digest(`${this.server}\n${sub}`)}`;
    const deadline = this.#now() + REFRESH_LOCK_SECONDS * 1000;
    while (!(await this.#options.store.setIfAbsent(lock, '1', REFRESH_LOCK_SECONDS))) {
      // Another replica refreshes: its result is the record, once written.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const record = await this.#records.load(sub);
      if (record !== undefined && (record.needsReconnect || fresh(record, this.#now()))) return this.#usable(record);
      if (this.#now() > deadline) throw new UpstreamAuthorizationError(`refreshing the connection to ${this.server} took too long`);
    }
    try {
      const record = await this.#records.load(sub);
      if (record === undefined) throw new ConnectionNeededError(this.server, 'not-connected');
      // Refreshed by another replica between our read and the lock.
      if (record.needsReconnect || fresh(record, this.#now())) return this.#usable(record);
      const { authorization, configuration } = await this.#prepare();
      let tokens;
      try {
        tokens = await oidc.refreshTokenGrant(configuration, record.refreshToken ?? '', { resource: authorization.resource });
      } catch (error) {
        if (error instanceof oidc.ResponseBodyError && error.error === 'invalid_grant') {
          // The tokens are dead: only the fact is kept, so the person is told to reconnect.
          await this.#records.save(sub, {
            accessToken: '',
            connectedAt: record.connectedAt,
            ...(record.scope !== undefined && { scope: record.scope }),
            needsReconnect: true,
            keptUntil: this.#now() + RECORD_MAX_SECONDS * 1000,
          });
          this.#emit({ server: this.server, sub, event: 'needs-reconnect', reason: 'invalid_grant' });
          throw new ConnectionNeededError(this.server, 'needs-reconnect');
        }
        this.#emit({ server: this.server, sub, event: 'refresh-failed', reason: error instanceof oidc.ResponseBodyError ? error.error : error instanceof Error ? error.name : 'unknown' });
        throw error;
      }
      const refreshed = recordOf(tokens, this.#now(), record);
      await this.#records.save(sub, refreshed);
      this.#emit({ server: this.server, sub, event: 'refreshed' });
      return refreshed;
    } finally {
      await this.#options.store.delete(lock);
    }
  }

  #usable(record: ConnectionRecord): ConnectionRecord {
    if (record.needsReconnect) throw new ConnectionNeededError(this.server, 'needs-reconnect');
    return record;
  }

  #prepare(): Promise<{ authorization: UpstreamAuthorization; client: UpstreamClient; configuration: oidc.Configuration }> {
    this.#prepared ??= (async () => {
      const options = this.#options;
      const authorization = await discoverUpstreamAuthorization({
        url: options.url,
        timeoutMs: options.timeoutMs,
        ...(options.authorizationServer !== undefined && { authorizationServer: options.authorizationServer }),
      });
      const loopback = new URL(authorization.server.issuer).protocol === 'http:';
      const client = await upstreamClient({
        server: options.server,
        as: authorization.server,
        configured: options.client,
        metadataDocumentUrl: options.publicOrigin.startsWith('https:') ? `${options.publicOrigin}${CLIENT_METADATA_PATH}` : undefined,
        redirectUri: this.#redirectUri,
        clientName: `Switchboard (${new URL(options.publicOrigin).host})`,
        store: options.store,
        sealer: options.sealer,
        timeoutMs: options.timeoutMs,
        allowInsecureLoopback: loopback,
      });
      const configuration = new oidc.Configuration(
        authorization.server as oidc.ServerMetadata,
        client.clientId,
        undefined,
        client.clientSecret === undefined ? oidc.None() : oidc.ClientSecretBasic(client.clientSecret),
      );
      if (loopback) oidc.allowInsecureRequests(configuration);
      configuration.timeout = Math.ceil(options.timeoutMs / 1000);
      return { authorization, client, configuration };
    })().catch((error: unknown) => {
      this.#prepared = undefined;
      throw error;
    });
    return this.#prepared;
  }

  #emit(event: ConnectionEvent): void {
    try {
      this.#options.onEvent?.(event);
    } catch {
      // The audit trail's or the metrics' failure is not the person's problem.
    }
  }

}
