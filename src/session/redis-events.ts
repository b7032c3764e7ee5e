// SessionEvents in Redis, so that a message produced on one replica reaches a client whose stream
// is held by another, and a stream reopened on any replica replays what it missed.
//
// Layout (prefix defaults to "switchboard:"):
//   {prefix}queue:{session}            list: messages waiting for a standalone (GET) stream
//   {prefix}events:{session}:{stream}  stream: what was sent on one SSE stream; entry ids are positions
//   {prefix}streams:{session}          set: the session's stream ids, so drop() finds their logs
//   {prefix}wake:{session}             pub/sub channel: "something new for this session"
// Every key expires after the session idle timeout, slid by each write.
//
// take() is one Lua script that pops from the queue and logs under the taking stream, so two
// streams of one session (on two replicas) never both send a message, and none is lost between.
import type { Redis } from 'ioredis';
import {
  formatEventId,
  MAX_LOGGED_PER_STREAM,
  MAX_QUEUED_PER_SESSION,
  type EventMessage,
  type SessionEvents,
  type StreamEvent,
} from './events.js';
import { storeCommand } from './redis-connection.js';
import type { RedisPubSub } from './redis-pubsub.js';

export interface RedisSessionEventsOptions {
  /** A command connection (shared with the bus: one per replica is enough for both). */
  redis: Redis;
  pubsub: RedisPubSub;
  idleTimeoutSeconds: number;
  keyPrefix?: string;
  /** Redis as errors name it (redis-target.ts, describeRedis). */
  describedRedis?: string;
}

/** KEYS: log, streams set. ARGV: message, max log length, ttl seconds, stream id, wake channel. */
const APPEND = `
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'm', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('SADD', KEYS[2], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[3])
redis.call('PUBLISH', ARGV[5], '')
return id
`;

/** KEYS: queue. ARGV: message, max queue length, ttl seconds, wake channel. */
const ENQUEUE = `
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[2]), -1)
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('PUBLISH', ARGV[4], '')
return 1
`;

/** KEYS: queue, once marker. ARGV: message, max queue length, ttl seconds, wake channel. */
const ENQUEUE_ONCE = `
if not redis.call('SET', KEYS[2], '1', 'NX', 'EX', ARGV[3]) then return 0 end
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[2]), -1)
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('PUBLISH', ARGV[4], '')
return 1
`;

/** KEYS: queue, log, streams set. ARGV: max to take, max log length, ttl seconds, stream id. */
const TAKE = `
local taken = {}
for i = 1, tonumber(ARGV[1]) do
  local message = redis.call('LPOP', KEYS[1])
  if not message then break end
  local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', 'm', message)
  taken[#taken + 1] = id
  taken[#taken + 1] = message
end
if #taken > 0 then
  redis.call('EXPIRE', KEYS[2], ARGV[3])
  redis.call('SADD', KEYS[3], ARGV[4])
  redis.call('EXPIRE', KEYS[3], ARGV[3])
end
return taken
`;

interface EventCommands {
  sbAppend(log: string, streams: string, message: string, maxLen: number, ttl: number, streamId: string, channel: string): Promise<string>;
  sbEnqueue(queue: string, message: string, maxLen: number, ttl: number, channel: string): Promise<number>;
  sbEnqueueOnce(queue: string, marker: string, message: string, maxLen: number, ttl: number, channel: string): Promise<number>;
  sbTake(queue: string, log: string, streams: string, max: number, maxLen: number, ttl: number, streamId: string): Promise<string[]>;
}

export class RedisSessionEvents implements SessionEvents {
  readonly #redis: Redis & EventCommands;
  readonly #pubsub: RedisPubSub;
  readonly #prefix: string;
  readonly #ttl: number;
  readonly #where: string;

  constructor({ redis, pubsub, idleTimeoutSeconds, keyPrefix = 'switchboard:', describedRedis = 'Redis' }: RedisSessionEventsOptions) {
    redis.defineCommand('sbAppend', { numberOfKeys: 2, lua: APPEND });
    redis.defineCommand('sbEnqueue', { numberOfKeys: 1, lua: ENQUEUE });
    redis.defineCommand('sbEnqueueOnce', { numberOfKeys: 2, lua: ENQUEUE_ONCE });
    redis.defineCommand('sbTake', { numberOfKeys: 3, lua: TAKE });
    this.#redis = redis as Redis & EventCommands;
    this.#pubsub = pubsub;
    this.#prefix = keyPrefix;
    this.#ttl = idleTimeoutSeconds;
    this.#where = describedRedis;
  }

  async append(sessionId: string, streamId: string, message: EventMessage): Promise<string> {
    const position = await this.#run('append', () =>
      this.#redis.sbAppend(
        this.#logKey(sessionId, streamId),
        this.#streamsKey(sessionId),
        JSON.stringify(message),
        MAX_LOGGED_PER_STREAM,
        this.#ttl,
        streamId,
        this.#wakeChannel(sessionId),
      ),
    );
    return formatEventId(streamId, position);
  }

  async enqueue(sessionIds: readonly string[], message: EventMessage, once?: string): Promise<void> {
    if (sessionIds.length === 0) return;
    const json = JSON.stringify(message);
    const pipeline = this.#redis.pipeline() as ReturnType<Redis['pipeline']> & {
      sbEnqueue: (...args: unknown[]) => unknown;
      sbEnqueueOnce: (...args: unknown[]) => unknown;
    };
    for (const sessionId of sessionIds) {
      if (once === undefined) pipeline.sbEnqueue(this.#queueKey(sessionId), json, MAX_QUEUED_PER_SESSION, this.#ttl, this.#wakeChannel(sessionId));
      // The marker lives as long as the queue would: a retry comes within it.
      else pipeline.sbEnqueueOnce(this.#queueKey(sessionId), `${this.#queueKey(sessionId)}:once:${once}`, json, MAX_QUEUED_PER_SESSION, this.#ttl, this.#wakeChannel(sessionId));
    }
    await this.#run('enqueue', async () => {
      const results = await pipeline.exec();
      const failure = results?.find(([error]) => error);
      if (failure?.[0]) throw failure[0];
    });
  }

  async take(sessionId: string, streamId: string, max: number): Promise<StreamEvent[]> {
    const flat = await this.#run('take', () =>
      this.#redis.sbTake(
        this.#queueKey(sessionId),
        this.#logKey(sessionId, streamId),
        this.#streamsKey(sessionId),
        max,
        MAX_LOGGED_PER_STREAM,
        this.#ttl,
        streamId,
      ),
    );
    const events: StreamEvent[] = [];
    for (let index = 0; index + 1 < flat.length; index += 2) {
      events.push({ eventId: formatEventId(streamId, flat[index] ?? ''), message: JSON.parse(flat[index + 1] ?? '{}') as EventMessage });
    }
    return events;
  }

  async readAfter(sessionId: string, streamId: string, afterPosition: string): Promise<StreamEvent[]> {
    // Position 0 is every stream's priming event: "after 0" is the whole log.
    const start = afterPosition === '0' ? '-' : `(${afterPosition}`;
    if (start !== '-' && !/^\d+-\d+$/.test(afterPosition)) return [];
    const entries = await this.#run('readAfter', () => this.#redis.xrange(this.#logKey(sessionId, streamId), start, '+'));
    return entries.map(([position, fields]) => ({
      eventId: formatEventId(streamId, position),
      message: JSON.parse(fields[1] ?? '{}') as EventMessage,
    }));
  }

  watch(sessionId: string, listener: () => void): () => void {
    const stopWakes = this.#pubsub.subscribe(this.#wakeChannel(sessionId), listener);
    // A wake-up published while the subscriber was reconnecting is lost: after an outage, messages
    // queued meanwhile (a list change announced late) are read at once, not at the next keep-alive.
    const stopGaps = this.#pubsub.onReconnect(listener);
    return () => {
      stopWakes();
      stopGaps();
    };
  }

  async drop(sessionId: string): Promise<void> {
    await this.#run('drop', async () => {
      const streams = await this.#redis.smembers(this.#streamsKey(sessionId));
      await this.#redis.del(
        this.#queueKey(sessionId),
        this.#streamsKey(sessionId),
        ...streams.map((streamId) => this.#logKey(sessionId, streamId)),
      );
    });
  }

  #run<T>(operation: string, command: () => Promise<T>): Promise<T> {
    return storeCommand(this.#where, `events ${operation}`, command);
  }

  #queueKey(sessionId: string): string {
    return `${this.#prefix}queue:${sessionId}`;
  }

  #logKey(sessionId: string, streamId: string): string {
    return `${this.#prefix}events:${sessionId}:${streamId}`;
  }

  #streamsKey(sessionId: string): string {
    return `${this.#prefix}streams:${sessionId}`;
  }

  #wakeChannel(sessionId: string): string {
    return `${this.#prefix}wake:${sessionId}`;
  }
}
