// How replicas tell each other that a session record changed or is gone, so that a replica-local
// copy of it (caching-store.ts) is dropped at once rather than served until it ages out. Two
// implementations: in-process, and a Redis channel on the replica's one subscriber connection.
import type { Redis } from 'ioredis';
import { storeCommand } from './redis-connection.js';
import type { RedisPubSub } from './redis-pubsub.js';

export interface SessionChangeFeed {
  /** Tells every replica (this one too) that the session's record changed or was deleted. */
  announce(sessionId: string): Promise<void>;
  /**
   * Hears every announcement; `onGap` when some may have been missed (the feed reconnected), so a
   * listener keeping copies drops them all. Returns a function that stops listening.
   */
  listen(onChange: (sessionId: string) => void, onGap: () => void): () => void;
}

/** One process: announcements are function calls. */
export class MemorySessionChangeFeed implements SessionChangeFeed {
  readonly #listeners = new Set<(sessionId: string) => void>();

  async announce(sessionId: string): Promise<void> {
    for (const listener of this.#listeners) listener(sessionId);
  }

  listen(onChange: (sessionId: string) => void): () => void {
    this.#listeners.add(onChange);
    return () => this.#listeners.delete(onChange);
  }
}

/**
 * A Redis channel, `{prefix}session-changes`. Redis queues a message for every subscriber before
 * it answers the PUBLISH, so by the time a replica has answered a client for a change, the other
 * replicas' subscriber connections hold the news; a client's next request reaches them after it.
 */
export class RedisSessionChangeFeed implements SessionChangeFeed {
  readonly #channel: string;

  constructor(
    private readonly redis: Redis,
    private readonly pubsub: RedisPubSub,
    keyPrefix: string,
    private readonly describedRedis = 'Redis',
  ) {
    this.#channel = `${keyPrefix}session-changes`;
  }

  async announce(sessionId: string): Promise<void> {
    await storeCommand(this.describedRedis, 'change announcement', () => this.redis.publish(this.#channel, sessionId));
  }

  listen(onChange: (sessionId: string) => void, onGap: () => void): () => void {
    const stopMessages = this.pubsub.subscribe(this.#channel, onChange);
    const stopGaps = this.pubsub.onReconnect(onGap);
    return () => {
      stopMessages();
      stopGaps();
    };
  }
}
