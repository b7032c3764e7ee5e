// The bus across replicas: one broadcast channel and one channel per replica, both on the shared
// subscriber connection. Messages are small JSON envelopes: topic, sender, payload.
//
// A logged broadcast (broadcastLogged) is also appended to a capped stream, and its channel carries
// only "something new": each replica reads the stream from the last entry it handled, on each
// wake-up and after its subscriber reconnects. Pub/sub alone loses what is published while a
// replica's subscriber is away, and after an outage the replica that announces first is often back
// before the others' subscribers are.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { newReplicaId, type Bus, type BusHandler } from './bus.js';
import { storeCommand, whenConnected } from './redis-connection.js';
import type { RedisPubSub } from './redis-pubsub.js';

interface Envelope {
  t: string;
  f: string;
  p: Record<string, unknown>;
}

export interface RedisBusOptions {
  /** A command connection, shared with the event log. */
  redis: Redis;
  pubsub: RedisPubSub;
  keyPrefix?: string;
  /** Redis as errors name it (redis-target.ts, describeRedis). */
  describedRedis?: string;
}

/**
 * Sets KEYS[1] to "state claimant" (ARGV[1], ARGV[3]; expiring in ARGV[2] seconds) unless it already
 * holds the state; 1 when it did not, or when it holds it for this same claimant (a retried claim).
 * A bare state is what earlier versions wrote (still running during a rolling update).
 */
const CLAIM_CHANGE = `
local held = redis.call('GET', KEYS[1])
local mine = ARGV[1] .. ' ' .. ARGV[3]
if held == mine then return 1 end
if held == ARGV[1] or (held and string.sub(held, 1, #ARGV[1] + 1) == ARGV[1] .. ' ') then return 0 end
redis.call('SET', KEYS[1], mine, 'EX', ARGV[2])
return 1
`;

/** KEYS: the log. ARGV: envelope, max length, ttl seconds, wake channel. Appends, then wakes every replica. */
const LOGGED_BROADCAST = `
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'e', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('PUBLISH', ARGV[4], '')
return id
`;

/** Entries kept in the log: far more than the list changes of one outage. */
const LOG_MAX_LENGTH = 1_000;
/** The log expires a day after its last entry: a replica away longer has nothing to catch up. */
const LOG_TTL_SECONDS = 86_400;
const LOG_READ_BATCH = 100;
/** After a failed read of the log, the next try: the store may be back before any wake-up. */
const LOG_RETRY_MS = 1_000;

export class RedisBus implements Bus {
  readonly replicaId = newReplicaId();
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #where: string;
  readonly #handlers = new Map<string, Set<BusHandler>>();
  readonly #unsubscribes: (() => void)[];
  /** The last entry of the log this replica handled; undefined until the log's end is known. */
  #logPosition: string | undefined;
  #logStart: Promise<void> | undefined;
  #reading = false;
  #readAgain = false;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

  constructor({ redis, pubsub, keyPrefix = 'switchboard:', describedRedis = 'Redis' }: RedisBusOptions) {
    this.#redis = redis;
    this.#prefix = keyPrefix;
    this.#where = describedRedis;
    const deliver = (json: string) => this.#deliver(json);
    const readLog = () => void this.#readLog();
    this.#unsubscribes = [
      pubsub.subscribe(this.#broadcastChannel(), deliver),
      pubsub.subscribe(this.#replicaChannel(this.replicaId), deliver),
      pubsub.subscribe(this.#logChannel(), readLog),
      pubsub.onReconnect(readLog),
    ];
  }

  /** Resolves once the log's end is known: logged broadcasts from then on are handled here. */
  ready(): Promise<void> {
    this.#logStart ??= this.#findLogEnd();
    return this.#logStart;
  }

  async broadcast(topic: string, payload: Record<string, unknown>): Promise<void> {
    await storeCommand(this.#where, 'bus broadcast', () => this.#redis.publish(this.#broadcastChannel(), this.#envelope(topic, payload)));
  }

  async send(replicaId: string, topic: string, payload: Record<string, unknown>): Promise<void> {
    await storeCommand(this.#where, 'bus send', () => this.#redis.publish(this.#replicaChannel(replicaId), this.#envelope(topic, payload)));
  }

  async broadcastLogged(topic: string, payload: Record<string, unknown>): Promise<void> {
    await storeCommand(this.#where, 'bus broadcast', () =>
      this.#redis.eval(LOGGED_BROADCAST, 1, this.#logKey(), this.#envelope(topic, payload), LOG_MAX_LENGTH, LOG_TTL_SECONDS, this.#logChannel()),
    );
  }

  on(topic: string, handler: BusHandler): () => void {
    let handlers = this.#handlers.get(topic);
    if (!handlers) {
      handlers = new Set();
      this.#handlers.set(topic, handlers);
    }
    handlers.add(handler);
    return () => handlers.delete(handler);
  }

  async claimChange(key: string, state: string, ttlSeconds: number, claimant = randomBytes(9).toString('base64url')): Promise<boolean> {
    const claimed = await storeCommand(this.#where, 'bus claim', () => this.#redis.eval(CLAIM_CHANGE, 1, `${this.#prefix}change:${key}`, state, ttlSeconds, claimant));
    return claimed === 1;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    for (const unsubscribe of this.#unsubscribes) unsubscribe();
    this.#handlers.clear();
  }

  /** Where this replica starts reading the log: its end now. Not found (the store did not answer): the next read asks again. */
  async #findLogEnd(): Promise<void> {
    await whenConnected(this.#redis);
    try {
      const last = await storeCommand(this.#where, 'bus log', () => this.#redis.xrevrange(this.#logKey(), '+', '-', 'COUNT', 1));
      this.#logPosition ??= last[0]?.[0] ?? '0-0';
    } catch {
      this.#logStart = undefined;
    }
  }

  /** Handles the log's entries after the last one handled, in order, each once; one read at a time. */
  async #readLog(): Promise<void> {
    if (this.#reading) {
      this.#readAgain = true;
      return;
    }
    this.#reading = true;
    try {
      do {
        this.#readAgain = false;
        if (this.#logPosition === undefined) await this.ready();
        if (this.#logPosition === undefined) throw new Error('the end of the bus log is not known yet');
        let entries;
        do {
          entries = await storeCommand(this.#where, 'bus log', () => this.#redis.xrange(this.#logKey(), `(${this.#logPosition}`, '+', 'COUNT', LOG_READ_BATCH));
          for (const [position, fields] of entries) {
            this.#logPosition = position;
            this.#deliver(fields[1] ?? '');
          }
        } while (entries.length === LOG_READ_BATCH && !this.#closed);
      } while (this.#readAgain && !this.#closed);
    } catch {
      // The store did not answer: try again soon, whether or not a wake-up or reconnect comes first.
      if (!this.#closed) {
        clearTimeout(this.#retry);
        this.#retry = setTimeout(() => void this.#readLog(), LOG_RETRY_MS);
        this.#retry.unref();
      }
    } finally {
      this.#reading = false;
    }
  }

  #deliver(json: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(json) as Envelope;
    } catch {
      return;
    }
    for (const handler of this.#handlers.get(envelope.t) ?? []) handler(envelope.p, envelope.f);
  }

  #envelope(topic: string, payload: Record<string, unknown>): string {
    return JSON.stringify({ t: topic, f: this.replicaId, p: payload } satisfies Envelope);
  }

  #broadcastChannel(): string {
    return `${this.#prefix}bus`;
  }

  #logKey(): string {
    return `${this.#prefix}bus-log`;
  }

  #logChannel(): string {
    return `${this.#prefix}bus-log`;
  }

  #replicaChannel(replicaId: string): string {
    return `${this.#prefix}bus:${replicaId}`;
  }
}
