// Where the gateway's Redis is and how to reach it: one instance by URL, or the master of a
// Sentinel group, which every connection asks the sentinels for (again after each failover).
// Config (`sessions.redisUrl`, `sessions.redis`) becomes one of these once, in redisTargetOf; every
// connection of the gateway (store, events and bus, subscriber, limits, token cache) is opened from
// it by redis-connection.ts, so all of them follow a failover alike.
import { assertRedisUrl, describeRedisUrl } from './redis-url.js';

export interface RedisTlsOptions {
  /** PEM files: the CA that signed Redis' certificate; a client certificate and key for mutual TLS. */
  readonly caFile?: string;
  readonly certFile?: string;
  readonly keyFile?: string;
  /** The name to check the certificate against (SNI); default the host connected to. */
  readonly servername?: string;
  /** Default true. */
  readonly rejectUnauthorized?: boolean;
}

/** TLS on (with the system's CAs), off, or with options. */
export type RedisTls = boolean | RedisTlsOptions;

interface RedisAuth {
  /** An ACL user of Redis itself (master and replicas); default the URL's, else none. */
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  readonly db?: number | undefined;
}

export interface StandaloneRedis extends RedisAuth {
  /** redis://[user:password@]host[:port][/db] or rediss://... */
  readonly url: string;
  /** TLS options for a rediss:// URL (a private CA, say); `true` turns TLS on for a redis:// URL. */
  readonly tls?: RedisTls | undefined;
}

export interface SentinelRedis extends RedisAuth {
  readonly sentinels: readonly { readonly host: string; readonly port: number }[];
  /** The master group name the sentinels monitor (`sentinel monitor <name> ...`). */
  readonly masterName: string;
  /** For the sentinels themselves (requirepass or an ACL user on the sentinels). */
  readonly sentinelUsername?: string | undefined;
  readonly sentinelPassword?: string | undefined;
  /** TLS to the master the sentinels name. */
  readonly tls?: RedisTls | undefined;
  /** TLS to the sentinels; default none. */
  readonly sentinelTls?: RedisTls | undefined;
}

/** A URL alone is the common case, and what tests pass. */
export type RedisTarget = string | StandaloneRedis | SentinelRedis;

export function isSentinel(target: RedisTarget): target is SentinelRedis {
  return typeof target === 'object' && 'sentinels' in target;
}

/** Throws (without echoing a password) unless the target can be connected to. */
export function assertRedisTarget(target: RedisTarget): void {
  if (typeof target === 'string') return assertRedisUrl(target);
  if (!isSentinel(target)) return assertRedisUrl(target.url);
  if (target.sentinels.length === 0) throw new Error('Redis Sentinel needs at least one sentinel address');
  if (target.masterName === '') throw new Error('Redis Sentinel needs the master name');
}

/** For log lines and error messages: never a password. */
export function describeRedis(target: RedisTarget): string {
  if (typeof target === 'string') return describeRedisUrl(target);
  if (!isSentinel(target)) return describeRedisUrl(target.url);
  const sentinels = target.sentinels.map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`).join(',');
  return `sentinel master "${target.masterName}" via ${sentinels}`;
}

/** What `sessions` says about Redis, as the config schema leaves it. */
export interface RedisSessionsConfig {
  readonly redisUrl?: string | undefined;
  readonly redis?:
    | (Omit<Partial<SentinelRedis>, 'sentinels'> & {
        readonly sentinels?: readonly { readonly host: string; readonly port: number }[] | undefined;
      })
    | undefined;
}

/** The one place the config's Redis settings become a target; undefined when there is no Redis. */
export function redisTargetOf({ redisUrl, redis }: RedisSessionsConfig): RedisTarget | undefined {
  const auth = {
    ...(redis?.username !== undefined && { username: redis.username }),
    ...(redis?.password !== undefined && { password: redis.password }),
    ...(redis?.db !== undefined && { db: redis.db }),
    ...(redis?.tls !== undefined && { tls: redis.tls }),
  };
  if (redis?.sentinels !== undefined && redis.sentinels.length > 0) {
    return {
      sentinels: redis.sentinels,
      masterName: redis.masterName ?? '',
      ...auth,
      ...(redis.sentinelUsername !== undefined && { sentinelUsername: redis.sentinelUsername }),
      ...(redis.sentinelPassword !== undefined && { sentinelPassword: redis.sentinelPassword }),
      ...(redis.sentinelTls !== undefined && { sentinelTls: redis.sentinelTls }),
    };
  }
  if (redisUrl === undefined) return undefined;
  return Object.keys(auth).length === 0 ? redisUrl : { url: redisUrl, ...auth };
}
