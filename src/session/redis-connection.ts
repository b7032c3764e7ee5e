// The one factory of the gateway's Redis connections: the store, the event log and bus, the shared
// subscriber, the rate limits and the token cache all connect through here, so they reach the same
// Redis the same way (URL or Sentinel, TLS, auth) and follow a failover alike.
//
// What a command connection does while Redis does not answer, and why:
// - No offline queue once connected: a command issued while the connection is down fails at once,
//   rather than waiting for a reconnect that may never come in time. A queued command that timed
//   out would still be sent once Redis is back, doing later what its caller was told had failed.
//   Only the first connection is waited for (bounded by commandTimeout), so that a component may
//   be used as soon as it is made.
// - Nothing resent after a reconnect (autoResendUnfulfilledCommands off, maxRetriesPerRequest 0):
//   a command in flight when the connection broke fails with it, since Redis may or may not have
//   run it. So a command either succeeded, once, or failed; it never runs twice.
// - commandTimeout bounds a Redis that is connected but does not answer (stopped, overloaded, a
//   network that drops packets).
// - Reconnects are tried at once and then every 100 ms to 1 s: calls resume within a second of
//   Redis being back.
// - A READONLY answer means the node we reach is no longer the master (it was demoted by a
//   failover while we stayed connected): reconnect, which with Sentinel asks for the master again.
// - A connection that sits idle would only learn of a demotion from the first write that fails,
//   perhaps seconds later, on a request or a list change. So each one asks ROLE every second and
//   reconnects as soon as the node says it is no longer the master (behind one address, a proxy or
//   a Service, the reconnect reaches the new master).
// - A command that times out means this Redis is stuck (stopped, swamped), not one slow command:
//   from then on, every command connection to it refuses commands at once, without sending them,
//   until a probe (PING, one at a time) is answered. So a request that needs the store waits for one
//   command timeout at most, whichever of its connections (rate limits, the store) met it first, and
//   later requests are refused at once. What was refused was never sent, so it cannot run when Redis
//   resumes; what timed out was sent and may run then (redis-store.ts undoes a session created so).
// The subscriber is the opposite: it is useful only connected, its SUBSCRIBEs wait for the
// connection (offline queue), and ioredis subscribes again after each reconnect.
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { Redis, ReplyError, type RedisOptions } from 'ioredis';
import { StoreUnavailableError } from './store-unavailable.js';
import { assertRedisTarget, describeRedis, isSentinel, type RedisTarget, type RedisTls } from './redis-target.js';

export interface RedisConnectionOptions {
  readonly commandTimeoutMs?: number;
}

const RECONNECT_CEILING_MS = 1_000;
/** How often a command connection asks its node whether it is still the master. */
const ROLE_CHECK_MS = 1_000;
const CONNECT_TIMEOUT_MS = 5_000;

/** The wait before reconnect attempt `attempt` (from 1): 100 ms more each time, at most a second. */
function reconnectDelay(attempt: number): number {
  return Math.min(attempt * 100, RECONNECT_CEILING_MS);
}

/** Replies that say "not now" rather than "wrong request": the store is unavailable, not the request bad. */
const UNAVAILABLE_REPLY = /^(LOADING|READONLY|MASTERDOWN|BUSY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS|MISCONF|OOM)\b/;

/** The message of ioredis' error for a command that got no answer within commandTimeout. */
const TIMED_OUT = 'Command timed out';
/** Between probes of a stuck Redis, each of which waits for up to a command timeout. */
const PROBE_INTERVAL_MS = 100;

/**
 * Which Redis (as describeRedis names it) is stuck: a command there timed out and no probe has been
 * answered since. Shared by every connection to it: the rate limits' and the store's alike.
 */
const stuck = new Set<string>();

/** A command refused unsent because its Redis is stuck: a freeze met earlier, on this or another connection. */
export class RedisStuckError extends Error {
  constructor() {
    super('Redis did not answer a command in time; commands are refused until it answers again');
    this.name = 'RedisStuckError';
  }
}

/** Whether commands to this Redis are refused at once for now (a command there timed out; no probe answered since). */
export function isStuck(target: RedisTarget): boolean {
  return stuck.has(describeRedis(target));
}

/** Refuses commands while the Redis is stuck, and marks it stuck when one times out (see above). */
function refuseWhileStuck(redis: Redis, target: RedisTarget): void {
  const key = describeRedis(target);
  const send = redis.sendCommand.bind(redis);
  let probing = false;
  let probeSending = false;
  const probe = (): void => {
    if (probing || closedOnPurpose.has(redis)) return;
    probing = true;
    probeSending = true;
    const ping = redis.ping();
    probeSending = false;
    ping.then(
      () => {
        probing = false;
        stuck.delete(key);
      },
      () => {
        probing = false;
        if (stuck.has(key)) setTimeout(probe, PROBE_INTERVAL_MS).unref();
      },
    );
  };
  redis.sendCommand = ((command, stream) => {
    if (stuck.has(key) && !probeSending) {
      command.reject(new RedisStuckError());
      // Every connection to a stuck Redis probes it: the first to be answered clears it for all.
      probe();
      return command.promise;
    }
    const sent = send(command, stream);
    command.promise.catch((error: unknown) => {
      if (error instanceof Error && error.message === TIMED_OUT && !closedOnPurpose.has(redis)) {
        stuck.add(key);
        probe();
      }
    });
    return sent;
  }) as Redis['sendCommand'];
}

/** A command connection (see above). */
export function openRedis(target: RedisTarget, { commandTimeoutMs = 2_000 }: RedisConnectionOptions = {}): Redis {
  const redis = connect(target, {
    enableOfflineQueue: true,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: commandTimeoutMs,
  });
  // ioredis reads the option at each command; the commands queued so far are sent after 'ready'.
  redis.once('ready', () => {
    redis.options.enableOfflineQueue = false;
  });
  reconnectWhenDemoted(redis);
  refuseWhileStuck(redis, target);
  return redis;
}

/**
 * Asks the node its role every ROLE_CHECK_MS while connected, and reconnects when it is no longer
 * the master (see above). One check at a time: a node that does not answer is the command
 * timeout's business, not a pile of ROLEs.
 */
function reconnectWhenDemoted(redis: Redis): void {
  let checking = false;
  const timer = setInterval(() => {
    if (closedOnPurpose.has(redis)) {
      clearInterval(timer);
      return;
    }
    if (checking || redis.status !== 'ready') return;
    checking = true;
    redis
      .role()
      .then((role) => {
        if (role[0] !== 'master' && redis.status === 'ready' && !closedOnPurpose.has(redis)) redis.disconnect(true);
      })
      .catch((error: unknown) => {
        // A Redis that refuses ROLE itself (a managed one that disables it) is not asked again.
        if (!isUnavailability(error)) clearInterval(timer);
      })
      .finally(() => {
        checking = false;
      });
  }, ROLE_CHECK_MS);
  timer.unref();
}

/** The subscriber connection: SUBSCRIBEs wait for the connection and are made again after each reconnect. */
export function openSubscriber(target: RedisTarget): Redis {
  return connect(target, { enableOfflineQueue: true, maxRetriesPerRequest: null });
}

/** The connections the gateway is closing (closeRedis): every other one that ends is started again. */
const closedOnPurpose = new WeakSet<Redis>();

/**
 * ioredis gives a connection up for good ('end') not only when it is closed but also when an attempt
 * to reconnect fails before it has a socket: with Sentinel, a failover announced (+switch-master)
 * while a reconnect is asking the sentinels for the master ends that attempt with "Connection is
 * closed", and the client never tries again (redis/ioredis#1683 reports the symptom). A replica then
 * answered 503 for good after a failover its neighbour followed (test/integration/redis-sentinel,
 * under load). A connection that ends without closeRedis is connected again, with the reconnects'
 * own backoff.
 */
function reconnectWhenGivenUp(redis: Redis): void {
  let attempts = 0;
  redis.on('end', () => {
    if (closedOnPurpose.has(redis)) return;
    attempts += 1;
    setTimeout(() => {
      if (closedOnPurpose.has(redis) || redis.status !== 'end') return;
      // A failed attempt ends the connection again, which comes back here.
      redis.connect().catch(() => {});
    }, reconnectDelay(attempts)).unref();
  });
  redis.on('ready', () => {
    attempts = 0;
  });
}

function connect(target: RedisTarget, options: RedisOptions): Redis {
  const redis = newConnection(target, options);
  reconnectWhenGivenUp(redis);
  return redis;
}

function newConnection(target: RedisTarget, options: RedisOptions): Redis {
  assertRedisTarget(target);
  const common: RedisOptions = {
    ...options,
    lazyConnect: false,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: reconnectDelay,
    reconnectOnError: (error) => error.message.startsWith('READONLY'),
  };
  if (typeof target === 'string') return new Redis(target, common);
  const auth: RedisOptions = {
    ...(target.username !== undefined && { username: target.username }),
    ...(target.password !== undefined && { password: target.password }),
    ...(target.db !== undefined && { db: target.db }),
  };
  const tls = tlsOptions(target.tls);
  if (!isSentinel(target)) return new Redis(target.url, { ...common, ...auth, ...(tls && { tls }) });
  const sentinelTls = tlsOptions(target.sentinelTls);
  return new Redis({
    ...common,
    ...auth,
    sentinels: target.sentinels.map(({ host, port }) => ({ host, port })),
    name: target.masterName,
    role: 'master',
    ...(target.sentinelUsername !== undefined && { sentinelUsername: target.sentinelUsername }),
    ...(target.sentinelPassword !== undefined && { sentinelPassword: target.sentinelPassword }),
    ...(tls && { tls, enableTLSForSentinelMode: true }),
    ...(sentinelTls && { sentinelTLS: sentinelTls }),
    // Hears the sentinels announce a new master (+switch-master) and reconnects at once, even when
    // the old master is still up and our connection to it has not broken.
    failoverDetector: true,
    sentinelRetryStrategy: reconnectDelay,
    sentinelCommandTimeout: CONNECT_TIMEOUT_MS,
  });
}

function tlsOptions(tls: RedisTls | undefined): ConnectionOptions | undefined {
  if (tls === undefined || tls === false) return undefined;
  if (tls === true) return {};
  const read = (file: string, what: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (error) {
      throw new Error(`cannot read the Redis TLS ${what} ${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  };
  return {
    ...(tls.caFile !== undefined && { ca: read(tls.caFile, 'CA file') }),
    ...(tls.certFile !== undefined && { cert: read(tls.certFile, 'certificate file') }),
    ...(tls.keyFile !== undefined && { key: read(tls.keyFile, 'key file') }),
    ...(tls.servername !== undefined && { servername: tls.servername }),
    ...(tls.rejectUnauthorized !== undefined && { rejectUnauthorized: tls.rejectUnauthorized }),
  };
}

/** Says goodbye when Redis answers; drops the socket when it does not. */
export async function closeRedis(redis: Redis): Promise<void> {
  closedOnPurpose.add(redis);
  if (redis.status !== 'ready') {
    redis.disconnect();
    return;
  }
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}

/** Resolves once the connection is ready (the first time, or again after a reconnect). */
export function whenConnected(redis: Redis): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => redis.once('ready', () => resolve()));
}

/**
 * Refuses a Redis Cluster node: the gateway's scripts touch keys of different hash slots (a session
 * and the session index; a principal's several rate-limit counters), which a cluster refuses with
 * CROSSSLOT, or answers with MOVED for keys another node holds.
 */
export async function refuseCluster(redis: Redis, target: RedisTarget): Promise<void> {
  const info = await redis.info('cluster');
  if (/^cluster_enabled:1\s*$/m.test(info)) {
    throw new Error(
      `The Redis at ${describeRedis(target)} runs in cluster mode, which Switchboard does not support: its scripts touch keys of ` +
        'different hash slots (a session and the session index, a principal\'s rate-limit counters). Use one Redis primary, with ' +
        'replicas and Sentinel for failover (sessions.redis.sentinels), or a managed Redis without cluster mode.',
    );
  }
}

/**
 * Whether a failed command means the store did not answer (the connection is down or was lost, the
 * command timed out, Redis is loading, read-only after a failover, out of memory), rather than that
 * the command itself was wrong. Only Redis' own error replies can say the latter, and JavaScript's
 * built-in errors mean a bug of ours.
 */
export function isUnavailability(error: unknown): boolean {
  if (error instanceof ReplyError) return UNAVAILABLE_REPLY.test((error as Error).message);
  return !(error instanceof TypeError || error instanceof SyntaxError || error instanceof RangeError || error instanceof ReferenceError);
}

/**
 * Runs Redis commands for `operation`, naming the operation and Redis (without a password) in the
 * error; a failure of the store to answer becomes a StoreUnavailableError.
 */
export async function storeCommand<T>(where: string, operation: string, command: () => Promise<T>, explain: (error: unknown) => string = messageOf): Promise<T> {
  try {
    return await command();
  } catch (error) {
    const message = `Session store ${operation} failed on Redis at ${where}: ${explain(error)}`;
    if (isUnavailability(error)) throw new StoreUnavailableError(operation, message, { cause: error });
    throw new Error(message, { cause: error });
  }
}

/**
 * Whether a failed command may still have run: it was sent and no answer came (it timed out, or the
 * connection was lost with it in flight). A command refused before it was sent (no connection, a
 * stuck Redis) did not run and never will.
 */
export function mayHaveRun(error: unknown): boolean {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if (cause.message === TIMED_OUT || cause.message === 'Connection is closed.') return true;
  }
  return false;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
