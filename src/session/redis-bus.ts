// The bus across replicas: one broadcast channel and one channel per replica, both on the shared
// subscriber connection. Messages are small JSON envelopes: topic, sender, payload.
import type { Redis } from 'ioredis';
import { newReplicaId, type Bus, type BusHandler } from './bus.js';
import { storeCommand } from './redis-connection.js';
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

/** Sets KEYS[1] to ARGV[1] (expiring in ARGV[2] seconds) unless it already holds it; 1 when it did not. */
const CLAIM_CHANGE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return 1
`;

export class RedisBus implements Bus {
  readonly replicaId = newReplicaId();
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #where: string;
  readonly #handlers = new Map<string, Set<BusHandler>>();
  readonly #unsubscribes: (() => void)[];

  constructor({ redis, pubsub, keyPrefix = 'switchboard:', describedRedis = 'Redis' }: RedisBusOptions) {
    this.#redis = redis;
    this.#prefix = keyPrefix;
    this.#where = describedRedis;
    const deliver = (json: string) => this.#deliver(json);
    this.#unsubscribes = [pubsub.subscribe(this.#broadcastChannel(), deliver), pubsub.subscribe(this.#replicaChannel(this.replicaId), deliver)];
  }

  async broadcast(topic: string, payload: Record<string, unknown>): Promise<void> {
    await storeCommand(this.#where, 'bus broadcast', () => this.#redis.publish(this.#broadcastChannel(), this.#envelope(topic, payload)));
  }

  async send(replicaId: string, topic: string, payload: Record<string, unknown>): Promise<void> {
    await storeCommand(this.#where, 'bus send', () => this.#redis.publish(this.#replicaChannel(replicaId), this.#envelope(topic, payload)));
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

  async claimChange(key: string, state: string, ttlSeconds: number): Promise<boolean> {
    const claimed = await storeCommand(this.#where, 'bus claim', () => this.#redis.eval(CLAIM_CHANGE, 1, `${this.#prefix}change:${key}`, state, ttlSeconds));
    return claimed === 1;
  }

  async close(): Promise<void> {
    for (const unsubscribe of this.#unsubscribes) unsubscribe();
    this.#handlers.clear();
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

  #replicaChannel(replicaId: string): string {
    return `${this.#prefix}bus:${replicaId}`;
  }
}
