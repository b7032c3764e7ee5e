// Sessions in Redis, so any replica can serve any request of a session.
//
// Layout (keyPrefix defaults to "switchboard:"):
//   {prefix}session:{id}  string, the SessionRecord as JSON, EX = idle timeout (slid by get and update)
//   {prefix}sessions      sorted set, id -> expiry epoch milliseconds: the index that count() reads
//   {prefix}unused:{id}   string, exists until the session's first patch (EX = the unused idle timeout)
//   {prefix}principal-sessions:{sha256 of sub}
//                         sorted set of a principal's session ids, for the cap on live sessions
//                         (liveness and age come from the index; EX = idle timeout, renewed by create)
//
// Why an index rather than SCAN for count(): get runs on every request and already is a script
// (GETEX + ZADD, one round trip, atomic), so keeping the index costs one O(log n) ZADD inside a call
// that is made anyway. SCAN would be free on the hot path but walks the whole keyspace (event logs,
// other deployments' keys) on every metrics scrape of every replica.
//
// Why compare-and-set for update rather than merging in Lua: Redis' cjson turns [] into {} and keeps
// only 14 significant digits, which would corrupt client capabilities it does not understand. The
// merge stays in TypeScript (applySessionPatch, shared with the memory store) and Lua only swaps the
// JSON if nobody changed it since it was read; a loser merges again onto the winner's record.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { closeRedis, mayHaveRun, messageOf, openRedis, refuseCluster, storeCommand, whenConnected } from './redis-connection.js';
import type { Logger } from '../observe/logger.js';
import { applySessionPatch } from './apply-patch.js';
import { assertIdleTimeout } from './idle-timeout.js';
import { countSessions, createSession, deleteSession, getSession, replaceSession } from './redis-scripts.js';
import { describeRedis, type RedisTarget } from './redis-target.js';
import { StoreOutages, type StoreState } from './store-outages.js';
import { isStoreUnavailable } from './store-unavailable.js';
import type { SessionCreateOptions, SessionPatch, SessionRecord, SessionStore, SessionStoreOptions } from './store.js';

export interface RedisSessionStoreOptions extends SessionStoreOptions {
  /** A redis:// or rediss:// URL, or a Sentinel group (redis-target.ts). */
  redis: RedisTarget;
  /** Prepended to every key, so deployments (or test files) can share one Redis. Default "switchboard:". */
  keyPrefix?: string;
  /** A command with no reply after this long fails, so a hung Redis is an error, not a hung request. */
  commandTimeoutMs?: number;
  /** Told when an outage begins and when it ends (once each, not per retry): store-outages.ts. */
  logger?: Pick<Logger, 'info' | 'warn'> | undefined;
}

/** Sessions read per MGET: large enough to be one round trip for most deployments. */
const PEEK_BATCH = 1_000;

/** Between attempts to delete a session whose create was refused but may run later. */
const UNDO_RETRY_MS = 250;

/** Two concurrent writers settle in two rounds; this many conflicts in a row means something is wrong. */
const MAX_UPDATE_ATTEMPTS = 16;

export class RedisSessionStore implements SessionStore {
  readonly kind = 'redis' as const;
  readonly #redis: Redis;
  readonly #target: RedisTarget;
  readonly #describedUrl: string;
  readonly #idleTimeoutSeconds: number;
  readonly #unusedIdleTimeoutSeconds: number;
  readonly #keyPrefix: string;
  readonly #indexKey: string;
  /** Why the last (re)connect failed: says more than "Reached the max retries per request limit". */
  #connectionProblem: string | undefined;
  readonly #outages: StoreOutages;
  #closed = false;

  constructor({ redis, idleTimeoutSeconds, unusedIdleTimeoutSeconds, keyPrefix = 'switchboard:', commandTimeoutMs = 2_000, logger }: RedisSessionStoreOptions) {
    assertIdleTimeout(idleTimeoutSeconds);
    if (unusedIdleTimeoutSeconds !== undefined) assertIdleTimeout(unusedIdleTimeoutSeconds);
    this.#unusedIdleTimeoutSeconds = Math.min(unusedIdleTimeoutSeconds ?? idleTimeoutSeconds, idleTimeoutSeconds);
    this.#target = redis;
    this.#describedUrl = describeRedis(redis);
    this.#idleTimeoutSeconds = idleTimeoutSeconds;
    this.#keyPrefix = keyPrefix;
    this.#indexKey = `${keyPrefix}sessions`;
    this.#redis = openRedis(redis, { commandTimeoutMs });
    this.#outages = new StoreOutages({
      where: this.#describedUrl,
      logger,
      // A write that every kind of outage refuses (store-outages.ts); it expires on its own.
      probe: () => this.#redis.set(`${keyPrefix}probe`, '1', 'PX', 10_000),
    });
    this.#reportConnectionChanges();
  }

  /** Whether the store serves, or what kind of outage it is in (for /readyz and the metrics). */
  get state(): StoreState {
    return this.#outages.state;
  }

  async create(record: SessionRecord, { principalCap }: SessionCreateOptions = {}): Promise<readonly SessionRecord[]> {
    const cap = record.principal !== undefined && principalCap !== undefined ? principalCap : 0;
    const unused = record.used === true || this.#unusedIdleTimeoutSeconds === this.#idleTimeoutSeconds ? 0 : this.#unusedIdleTimeoutSeconds;
    let evicted: unknown;
    try {
      evicted = await this.#run('create', () =>
        createSession.run(this.#redis, [...this.#keys(record.id), this.#principalKey(record.principal)], [
          JSON.stringify(record),
          this.#idleTimeoutSeconds,
          record.id,
          unused,
          cap,
          this.#sessionKey(''),
          this.#unusedKey(''),
        ]),
      );
    } catch (error) {
      if (mayHaveRun(error)) this.#undoCreate(record.id);
      throw error;
    }
    return Array.isArray(evicted) ? evicted.filter((json): json is string => typeof json === 'string').map(parseRecord) : [];
  }

  /**
   * A create that was sent but not answered (a frozen Redis runs it when it resumes) made a session
   * whose initialize was refused: nobody holds its id. It is deleted once Redis answers; a delete
   * sent on this connection after the create runs after it. Tried until answered, or until the
   * record would have expired anyway.
   */
  #undoCreate(id: string): void {
    const until = Date.now() + this.#idleTimeoutSeconds * 1_000;
    const attempt = (): void => {
      if (this.#closed || Date.now() > until) return;
      deleteSession.run(this.#redis, this.#keys(id), [id]).catch(() => setTimeout(attempt, UNDO_RETRY_MS).unref());
    };
    setTimeout(attempt, UNDO_RETRY_MS).unref();
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    const json = await this.#run('get', () => getSession.run(this.#redis, this.#keys(id), [this.#idleTimeoutSeconds, id, this.#unusedIdleTimeoutSeconds]));
    return typeof json === 'string' ? parseRecord(json) : undefined;
  }

  async update(id: string, patch: SessionPatch): Promise<SessionRecord | undefined> {
    return this.#run('update', async () => {
      let current: unknown = await this.#redis.get(this.#sessionKey(id));
      for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
        if (typeof current !== 'string') return undefined;
        const next = applySessionPatch(parseRecord(current), patch);
        const outcome = await replaceSession.run(this.#redis, this.#keys(id), [
          current,
          JSON.stringify(next),
          this.#idleTimeoutSeconds,
          id,
        ]);
        if (outcome === 1) return next;
        current = outcome;
      }
      throw new Error(`gave up after ${MAX_UPDATE_ATTEMPTS} conflicting writes to the same session`);
    });
  }

  async delete(id: string): Promise<boolean> {
    const deleted = await this.#run('delete', () => deleteSession.run(this.#redis, this.#keys(id), [id]));
    return deleted === 1;
  }

  async count(): Promise<number> {
    const live = await this.#run('count', () => countSessions.run(this.#redis, [this.#indexKey], []));
    return Number(live);
  }

  async peekMany(ids: readonly string[]): Promise<(SessionRecord | undefined)[]> {
    const records: (SessionRecord | undefined)[] = [];
    // MGET, not GETEX: reading a session to decide on a notification must not keep it alive.
    for (let start = 0; start < ids.length; start += PEEK_BATCH) {
      const batch = ids.slice(start, start + PEEK_BATCH);
      const values = await this.#run('peekMany', () => this.#redis.mget(batch.map((id) => this.#sessionKey(id))));
      records.push(...values.map((json) => (typeof json === 'string' ? parseRecord(json) : undefined)));
    }
    return records;
  }

  async listIds(): Promise<string[]> {
    return this.#run('listIds', async () => {
      // The index's scores are expiry times by Redis' clock; anything at or above its now is live.
      const [seconds, micros] = await this.#redis.time();
      const nowMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
      return this.#redis.zrangebyscore(this.#indexKey, nowMs, '+inf');
    });
  }

  /** Resolves once connected, and refuses a Redis Cluster node (redis-connection.ts says why). */
  async connected(): Promise<void> {
    await whenConnected(this.#redis);
    await refuseCluster(this.#redis, this.#target);
  }

  async ping(): Promise<void> {
    try {
      await this.#redis.ping();
    } catch (error) {
      this.#outages.failed(error);
      throw new Error(`Redis at ${this.#describedUrl} does not answer: ${this.#explain(error)}`, { cause: error });
    }
  }

  async close(): Promise<void> {
    this.#outages.close();
    this.#closed = true;
    await closeRedis(this.#redis);
  }

  #sessionKey(id: string): string {
    return `${this.#keyPrefix}session:${id}`;
  }

  #unusedKey(id: string): string {
    return `${this.#keyPrefix}unused:${id}`;
  }

  /** A digest, so any `sub` makes a short key. */
  #principalKey(principal: string | undefined): string {
    return `${this.#keyPrefix}principal-sessions:${createHash('sha256').update(principal ?? '').digest('base64url')}`;
  }

  #keys(id: string): string[] {
    return [this.#sessionKey(id), this.#indexKey, this.#unusedKey(id)];
  }

  #explain(error: unknown): string {
    return this.#redis.status !== 'ready' && this.#connectionProblem !== undefined ? this.#connectionProblem : messageOf(error);
  }

  /**
   * Names the store and the operation in errors ("Connection is closed" alone does not say what
   * failed); a store that did not answer throws StoreUnavailableError.
   */
  async #run<T>(operation: string, command: () => Promise<T>): Promise<T> {
    try {
      return await storeCommand(this.#describedUrl, operation, command, (error) => this.#explain(error));
    } catch (error) {
      if (isStoreUnavailable(error)) this.#outages.failed(error.cause ?? error);
      throw error;
    }
  }

  #reportConnectionChanges(): void {
    // ioredis emits 'error' on every failed reconnect attempt and prints unhandled ones to the
    // console: listening is required, and the outage logs only its beginning and its end.
    this.#redis.on('error', (error: unknown) => {
      this.#connectionProblem = messageOf(error);
      this.#outages.failed(error);
    });
    this.#redis.on('ready', () => {
      this.#connectionProblem = undefined;
      // Connected again (or at last): the probe says whether it also takes writes.
      this.#outages.probeNow();
    });
  }
}

function parseRecord(json: string): SessionRecord {
  // Only this store writes these keys, always from a SessionRecord.
  return JSON.parse(json) as SessionRecord;
}

