// One subscriber connection per replica for every channel it listens on (session wake-ups, the
// bus), rather than one blocking connection per open stream: a replica with a thousand open SSE
// streams holds two Redis connections, not a thousand.
import type { Redis } from 'ioredis';
import { closeRedis, openSubscriber } from './redis-connection.js';
import type { RedisTarget } from './redis-target.js';

export type ChannelHandler = (payload: string) => void;

export class RedisPubSub {
  readonly #subscriber: Redis;
  readonly #handlers = new Map<string, Set<ChannelHandler>>();
  readonly #reconnectHandlers = new Set<() => void>();
  #connectedBefore = false;

  constructor(target: RedisTarget) {
    // SUBSCRIBEs wait for the connection, and are made again after each reconnect (or failover).
    this.#subscriber = openSubscriber(target);
    this.#subscriber.on('error', () => {
      // Reconnects are automatic and ioredis resubscribes every channel; the command connection
      // reports outages (readyz), so there is nothing to add here.
    });
    // Messages published while the connection was down are lost: whoever keeps state from them is told.
    this.#subscriber.on('ready', () => {
      if (this.#connectedBefore) for (const handler of this.#reconnectHandlers) handler();
      this.#connectedBefore = true;
    });
    this.#subscriber.on('message', (channel: string, payload: string) => {
      for (const handler of this.#handlers.get(channel) ?? []) handler(payload);
    });
  }

  /** Listens on a channel; the returned function stops listening (and unsubscribes when last). */
  subscribe(channel: string, handler: ChannelHandler): () => void {
    let handlers = this.#handlers.get(channel);
    if (!handlers) {
      handlers = new Set();
      this.#handlers.set(channel, handlers);
      void this.#subscriber.subscribe(channel).catch(() => {});
    }
    handlers.add(handler);
    return () => {
      const current = this.#handlers.get(channel);
      if (!current?.delete(handler) || current.size > 0) return;
      this.#handlers.delete(channel);
      void this.#subscriber.unsubscribe(channel).catch(() => {});
    };
  }

  /** Called after each reconnection (not the first connection); the returned function stops that. */
  onReconnect(handler: () => void): () => void {
    this.#reconnectHandlers.add(handler);
    return () => this.#reconnectHandlers.delete(handler);
  }

  /** Resolves once the subscriptions made so far are in place on the server. */
  async ready(): Promise<void> {
    if (this.#subscriber.status !== 'ready') await new Promise<void>((resolve) => this.#subscriber.once('ready', () => resolve()));
    // A PING on a subscribed connection is answered in order after the pending SUBSCRIBEs.
    await this.#subscriber.ping().catch(() => {});
  }

  async close(): Promise<void> {
    this.#handlers.clear();
    this.#reconnectHandlers.clear();
    await closeRedis(this.#subscriber);
  }
}
