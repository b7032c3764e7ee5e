import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { describeRedis, redisTargetOf } from '../../src/session/redis-target.js';
import { problemAt, problemsOf } from './config-test-helpers.js';

const SENTINEL = `
sessions:
  redis:
    sentinels: ["10.0.0.5:26379", "[fd00::6]:26379", {host: sentinel-2.redis, port: "26379"}]
    masterName: mymaster
    password: \${REDIS_PASSWORD}
    sentinelPassword: \${SENTINEL_PASSWORD:-}
`;

describe('sessions.redis', () => {
  it('reads a Sentinel group (host:port strings or objects) and so selects the Redis store', () => {
    const config = parseConfigText(SENTINEL, 'yaml', { REDIS_PASSWORD: 'pw' });
    expect(config.sessions.store).toBe('redis');
    expect(redisTargetOf(config.sessions)).toEqual({
      sentinels: [
        { host: '10.0.0.5', port: 26379 },
        { host: 'fd00::6', port: 26379 },
        { host: 'sentinel-2.redis', port: 26379 },
      ],
      masterName: 'mymaster',
      password: 'pw',
    });
  });

  it('names a Sentinel group without its passwords', () => {
    const target = redisTargetOf(parseConfigText(SENTINEL, 'yaml', { REDIS_PASSWORD: 'hunter2' }).sessions)!;
    expect(describeRedis(target)).toBe('sentinel master "mymaster" via 10.0.0.5:26379,[fd00::6]:26379,sentinel-2.redis:26379');
  });

  it('takes name as another word for masterName', () => {
    const config = parseConfigText('sessions:\n  redis: {sentinels: ["127.0.0.1:26379"], name: cache}\n', 'yaml', {});
    expect(redisTargetOf(config.sessions)).toMatchObject({ masterName: 'cache' });
  });

  it('requires the master name with sentinels, and sentinels with a master name', () => {
    expect(problemAt(problemsOf('sessions:\n  redis: {sentinels: ["127.0.0.1:26379"]}\n'), 'sessions.redis.masterName')).toMatch(/required with sentinels/);
    expect(problemAt(problemsOf('sessions:\n  redis: {masterName: mymaster}\n'), 'sessions.redis.sentinels')).toMatch(/required with masterName/);
  });

  it('refuses a sentinel that is not host:port', () => {
    expect(problemAt(problemsOf('sessions:\n  redis: {sentinels: ["10.0.0.5"], masterName: m}\n'), 'sessions.redis.sentinels[0]')).toMatch(/host:port/);
  });

  it('refuses a redisUrl (or REDIS_URL) beside sentinels', () => {
    expect(problemAt(problemsOf(SENTINEL, { env: { REDIS_PASSWORD: 'x', REDIS_URL: 'redis://redis:6379' } }), 'sessions.redisUrl')).toMatch(/not both/);
  });

  it('refuses Redis Cluster, saying why and what to use instead', () => {
    expect(problemAt(problemsOf('sessions:\n  redisUrl: redis://redis:6379\n  redis: {mode: cluster}\n'), 'sessions.redis.mode')).toMatch(
      /Redis Cluster is not supported: .*hash slots.*Sentinel/,
    );
  });

  it('adds TLS files and an ACL user to a redisUrl', () => {
    const config = parseConfigText('sessions:\n  redisUrl: rediss://redis:6380\n  redis: {username: gw, tls: {caFile: /etc/redis-ca.pem}}\n', 'yaml', {});
    expect(redisTargetOf(config.sessions)).toEqual({ url: 'rediss://redis:6380', username: 'gw', tls: { caFile: '/etc/redis-ca.pem' } });
  });

  it('leaves a plain redisUrl a URL', () => {
    expect(redisTargetOf(parseConfigText('sessions:\n  redisUrl: redis://redis:6379\n', 'yaml', {}).sessions)).toBe('redis://redis:6379');
  });

  it('refuses sentinel settings without sentinels', () => {
    expect(problemAt(problemsOf('sessions:\n  redisUrl: redis://redis:6379\n  redis: {sentinelPassword: x}\n'), 'sessions.redis.sentinelPassword')).toMatch(/sentinels only/);
  });
});
