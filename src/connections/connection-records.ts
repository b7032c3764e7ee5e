// The records of one server's connections in the store: each person's tokens sealed under a
// hashed key with a TTL (the refresh token's life, at most RECORD_MAX_SECONDS), their last use (a
// key of its own, written at most once a minute), the index of who connected (for the status
// page's counts), and the small records of the connect flow (links, states). No OAuth here:
// upstream-connector.ts decides what to keep; this file keeps it.
import { createHash } from 'node:crypto';
import type * as oidc from 'openid-client';
import type { TokenSealer } from '../credentials/token-sealing.js';
import type { KeyValueStore } from '../session/key-value.js';

export interface ConnectionRecord {
  readonly accessToken: string;
  readonly refreshToken?: string;
  /** Epoch ms; absent: the server gave no lifetime. */
  readonly expiresAt?: number;
  /** Epoch ms from which a call refreshes first: a minute before expiry, or a third of a short life. */
  readonly refreshAt?: number;
  /** Epoch ms after which the record is forgotten (the store's TTL): see RECORD_MAX_SECONDS. */
  readonly keptUntil?: number;
  readonly scope?: string;
  readonly connectedAt: number;
  /** invalid_grant on refresh: the person must connect again. */
  readonly needsReconnect?: true;
}

/** The number of people with a connection to one server, by state. */
export interface ConnectionCounts {
  readonly connected: number;
  readonly needsReconnect: number;
  /** The index held more people than were read (COUNT_LIMIT): the counts are a floor. */
  readonly partial: boolean;
}

/** Refresh this long before expiry, so a call never carries a token about to lapse. */
const REFRESH_AHEAD_MS = 60_000;
export const RECORD_MAX_SECONDS = 90 * 24 * 3600;
/** A connection's last use is written at most this often per person and replica, never per call. */
const USE_NOTE_MS = 60_000;
/** The people index of a server lives this long past its last connect (then counts restart from the next). */
const INDEX_SECONDS = 400 * 24 * 3600;
/** Counting reads at most this many records; a bigger index is reported as a floor. */
const COUNT_LIMIT = 2_000;
/** A count younger than this is reused: the status page refreshes every few seconds. */
const COUNT_CACHE_MS = 30_000;

export class ConnectionRecords {
  /** When this replica last wrote each person's last use. */
  readonly #usedNoted = new Map<string, number>();
  #counted: { readonly at: number; readonly counts: Promise<ConnectionCounts> } | undefined;

  constructor(
    private readonly server: string,
    private readonly store: KeyValueStore,
    private readonly sealer: TokenSealer,
    private readonly now: () => number,
  ) {}

  async load(sub: string): Promise<ConnectionRecord | undefined> {
    return this.#loadKey(this.#recordKey(sub));
  }

  /** Saves a person's record; a first connection also enters the index the counts read. */
  async save(sub: string, record: ConnectionRecord, { first = false }: { first?: boolean } = {}): Promise<void> {
    const key = this.#recordKey(sub);
    const ttl = Math.max(1, Math.ceil(((record.keptUntil ?? this.now() + RECORD_MAX_SECONDS * 1000) - this.now()) / 1000));
    await this.store.set(key, this.sealer.seal(JSON.stringify(record), key), ttl);
    if (first) await this.store.addMember(this.#indexKey, digest(`${this.server}\n${sub}`), INDEX_SECONDS);
    this.#counted = undefined;
  }

  async delete(sub: string): Promise<void> {
    await this.store.delete(this.#recordKey(sub), this.#usedKey(sub));
    this.#usedNoted.delete(sub);
    this.#counted = undefined;
  }

  /** When the person last used the connection (epoch ms), to the minute. */
  async lastUsed(sub: string): Promise<number | undefined> {
    const used = await this.store.get(this.#usedKey(sub));
    const at = used === undefined ? undefined : Number(used);
    return at !== undefined && Number.isFinite(at) ? at : undefined;
  }

  /** At most once a minute per person and replica, and never in the call's way. */
  noteUse(sub: string): void {
    const now = this.now();
    if (now - (this.#usedNoted.get(sub) ?? Number.NEGATIVE_INFINITY) < USE_NOTE_MS) return;
    // Bounded: a replica serving very many people forgets when it wrote, and writes once more.
    if (this.#usedNoted.size >= 10_000) this.#usedNoted.clear();
    this.#usedNoted.set(sub, now);
    this.store.set(this.#usedKey(sub), String(now), RECORD_MAX_SECONDS).catch(() => this.#usedNoted.delete(sub));
  }

  /**
   * How many people have a connection here, by state, for the status page. Read from an index of
   * the people who connected (a set in the store, one member per person: a digest, no name) and
   * their records, at most COUNT_LIMIT of them, and kept COUNT_CACHE_MS: cheap and bounded.
   * Members whose record is gone (disconnected) count as nothing.
   */
  counts(): Promise<ConnectionCounts> {
    const now = this.now();
    if (this.#counted !== undefined && now - this.#counted.at < COUNT_CACHE_MS) return this.#counted.counts;
    const counts = (async (): Promise<ConnectionCounts> => {
      const members = await this.store.members(this.#indexKey);
      let connected = 0;
      let needsReconnect = 0;
      for (const member of members.slice(0, COUNT_LIMIT)) {
        const record = await this.#loadKey(`connection:${member}`);
        if (record === undefined) continue;
        if (record.needsReconnect) needsReconnect += 1;
        else connected += 1;
      }
      return { connected, needsReconnect, partial: members.length > COUNT_LIMIT };
    })();
    this.#counted = { at: now, counts };
    counts.catch(() => {
      if (this.#counted?.counts === counts) this.#counted = undefined;
    });
    return counts;
  }

  /** A small sealed record of the connect flow (`link:<id>`, `state:<state>`): read, or taken once. */
  async openSealed<T>(key: string, take: boolean): Promise<T | undefined> {
    const sealed = take ? await this.store.take(key) : await this.store.get(key);
    const plain = sealed === undefined ? undefined : this.sealer.open(sealed, key);
    return plain === undefined ? undefined : (JSON.parse(plain) as T);
  }

  async sealAndSet(key: string, value: unknown, ttlSeconds: number): Promise<void> {
    await this.store.set(key, this.sealer.seal(JSON.stringify(value), key), ttlSeconds);
  }

  #recordKey(sub: string): string {
    return `connection:${digest(`${this.server}\n${sub}`)}`;
  }

  /** Apart from the record: a use written while a refresh on another replica writes the record must not undo it. */
  #usedKey(sub: string): string {
    return `used:${digest(`${this.server}\n${sub}`)}`;
  }

  get #indexKey(): string {
    return `people:${this.server}`;
  }

  async #loadKey(key: string): Promise<ConnectionRecord | undefined> {
    const sealed = await this.store.get(key);
    const plain = sealed === undefined ? undefined : this.sealer.open(sealed, key);
    return plain === undefined ? undefined : (JSON.parse(plain) as ConnectionRecord);
  }
}

/** Usable as it is: no expiry known, or not yet at the time to refresh. */
export function fresh(record: ConnectionRecord, now: number): boolean {
  return (refreshTime(record) ?? Infinity) > now;
}

export function refreshTime(record: ConnectionRecord): number | undefined {
  return record.expiresAt === undefined ? undefined : (record.refreshAt ?? record.expiresAt - REFRESH_AHEAD_MS);
}

export function recordOf(tokens: oidc.TokenEndpointResponse, now: number, before?: ConnectionRecord): ConnectionRecord {
  const refreshToken = tokens.refresh_token ?? before?.refreshToken;
  const lifeMs = typeof tokens.expires_in === 'number' ? tokens.expires_in * 1000 : undefined;
  // Keycloak and others say how long the refresh token lives; the standard response does not.
  const refreshLifeSeconds = typeof tokens.refresh_expires_in === 'number' && tokens.refresh_expires_in > 0 ? tokens.refresh_expires_in : undefined;
  const keptSeconds = refreshToken !== undefined ? Math.min(refreshLifeSeconds ?? RECORD_MAX_SECONDS, RECORD_MAX_SECONDS) : lifeMs !== undefined ? Math.min(lifeMs / 1000, RECORD_MAX_SECONDS) : RECORD_MAX_SECONDS;
  return {
    accessToken: tokens.access_token,
    ...(refreshToken !== undefined && { refreshToken }),
    ...(lifeMs !== undefined && { expiresAt: now + lifeMs, refreshAt: now + lifeMs - Math.min(REFRESH_AHEAD_MS, lifeMs / 3) }),
    keptUntil: now + keptSeconds * 1000,
    ...((tokens.scope ?? before?.scope) !== undefined && { scope: tokens.scope ?? before?.scope }),
    connectedAt: before?.connectedAt ?? now,
  };
}

export function digest(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('base64url');
}
