// `sessions.redis`: how to reach Redis beyond what one URL says. With `sentinels` and `masterName`,
// the master of a Sentinel group, which the gateway asks the sentinels for and follows through a
// failover; without, options for the `sessions.redisUrl` connection (TLS files, ACL user, db).
// Redis Cluster is refused here with the reason (the gateway's scripts span hash slots).
import { z } from 'zod';
import { lenientBoolean, lenientNumber } from './lenient.js';

/** An empty string (from `${VAR:-}`) means "not set". */
const optionalSecret = z
  .string()
  .optional()
  .transform((value) => (value === '' ? undefined : value));

const port = lenientNumber(z.number().int().min(1).max(65_535));

// "host:port", "[::1]:26379", or {host, port}.
const sentinelAddress = z
  .union([
  z
    .string()
    .regex(/^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]]+):\d{1,5}$/, 'must be host:port (an IPv6 address in brackets)')
    .transform((address, ctx) => {
      const colon = address.lastIndexOf(':');
      const number = Number(address.slice(colon + 1));
      if (number < 1 || number > 65_535) ctx.addIssue({ code: 'custom', message: 'the port must be 1 to 65535' });
      return { host: address.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), port: number };
    }),
  z.object({ host: z.string().min(1).describe("The sentinel's host."), port: port.describe("The sentinel's port.") }).strict(),
], { error: 'must be "host:port" (an IPv6 address in brackets) or {host, port}' })
  .describe('A sentinel: `host:port` (an IPv6 address in brackets) or `{host, port}`.');

const tls = z.union([
  lenientBoolean(),
  z
    .object({
      caFile: z.string().min(1).optional().describe('A PEM file of the CA to trust (a private CA).'),
      certFile: z.string().min(1).optional().describe('A PEM client certificate.'),
      keyFile: z.string().min(1).optional().describe('Its private key.'),
      servername: z.string().min(1).optional().describe('The name to check the server certificate against (SNI).'),
      rejectUnauthorized: z.boolean().optional().describe('`false` skips checking the server certificate.'),
    })
    .strict(),
]);

export const CLUSTER_REFUSAL =
  'Redis Cluster is not supported: the gateway\'s scripts touch keys in different hash slots (a session and the session index, ' +
  'a principal\'s rate-limit counters), which a cluster refuses. Use one Redis primary, with replicas and Sentinel for failover ' +
  '(sessions.redis.sentinels and masterName), or a managed Redis without cluster mode';

export const redisSection = z
  .object({
    /** Inferred: sentinel when sentinels are given, else standalone. `cluster` is refused with the reason. */
    mode: z
      .enum(['standalone', 'sentinel', 'cluster'])
      .optional()
      .describe('Default `sentinel` when `sentinels` are given, else `standalone`. `cluster` is refused: the gateway\'s scripts span hash slots.'),
    sentinels: z.array(sentinelAddress).min(1, 'must list at least one sentinel').optional().describe('A Sentinel group to ask for the master (with `masterName`); then `redisUrl` must be unset.'),
    masterName: z.string().min(1).optional().describe('The name the sentinels monitor the master by.'),
    /** The name ioredis and redis-py give the master name. */
    name: z.string().min(1).optional().describe('Another name for `masterName` (as ioredis and redis-py call it).'),
    username: optionalSecret.describe("Redis' ACL user."),
    password: optionalSecret.describe("Redis' password (requirepass or the ACL user's)."),
    sentinelUsername: optionalSecret.describe("The sentinels' ACL user."),
    sentinelPassword: optionalSecret.describe("The sentinels' password."),
    db: lenientNumber(z.number().int().min(0).max(15)).optional().describe('The database number.'),
    tls: tls.optional().describe('TLS to Redis: `true`, or `{caFile, certFile, keyFile, servername, rejectUnauthorized}`.'),
    sentinelTls: tls.optional().describe('TLS to the sentinels, the same way.'),
  })
  .strict()
  .describe('A Sentinel group (`sentinels`, `masterName`), or more for the `redisUrl` connection (TLS files, ACL user, db).')
  .superRefine((redis, ctx) => {
    if (redis.mode === 'cluster') ctx.addIssue({ code: 'custom', path: ['mode'], message: CLUSTER_REFUSAL });
    if (redis.masterName !== undefined && redis.name !== undefined && redis.masterName !== redis.name) {
      ctx.addIssue({ code: 'custom', path: ['name'], message: 'is another name for masterName: set one of them' });
    }
    const masterName = redis.masterName ?? redis.name;
    if (redis.sentinels !== undefined && masterName === undefined) {
      ctx.addIssue({ code: 'custom', path: ['masterName'], message: 'required with sentinels (the name the sentinels monitor the master by)' });
    }
    if (redis.sentinels === undefined && masterName !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['sentinels'], message: `required with masterName (where to ask for the master "${masterName}")` });
    }
    if (redis.mode === 'sentinel' && redis.sentinels === undefined) {
      ctx.addIssue({ code: 'custom', path: ['sentinels'], message: 'required when mode is "sentinel"' });
    }
    if (redis.mode === 'standalone' && redis.sentinels !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['mode'], message: 'is "standalone" but sentinels are set: drop one' });
    }
    for (const key of ['sentinelUsername', 'sentinelPassword', 'sentinelTls'] as const) {
      if (redis[key] !== undefined && redis.sentinels === undefined) {
        ctx.addIssue({ code: 'custom', path: [key], message: 'applies to sentinels only: set sentinels and masterName, or drop it' });
      }
    }
  })
  .transform(({ name, masterName, mode, ...redis }) => {
    const master = masterName ?? name;
    return { ...redis, mode: mode ?? (redis.sentinels ? ('sentinel' as const) : ('standalone' as const)), ...(master !== undefined && { masterName: master }) };
  });
