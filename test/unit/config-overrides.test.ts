import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { problemAt, problemsOf } from './config-test-helpers.js';

const FILE = 'server:\n  host: 127.0.0.1\n  port: 8080\n';

describe('environment and command-line overrides', () => {
  it('lets PORT and HOST override the file', () => {
    const config = parseConfigText(FILE, 'yaml', { PORT: '9000', HOST: '0.0.0.0' });
    expect(config.server).toMatchObject({ host: '0.0.0.0', port: 9000 });
  });

  it('ignores PORT and HOST when they are empty', () => {
    const config = parseConfigText(FILE, 'yaml', { PORT: '', HOST: '' });
    expect(config.server).toMatchObject({ host: '127.0.0.1', port: 8080 });
  });

  it('lets --host and --port override the environment', () => {
    const config = parseConfigText(FILE, 'yaml', { PORT: '9000', HOST: '0.0.0.0' }, { host: '::1', port: 9001 });
    expect(config.server).toMatchObject({ host: '::1', port: 9001 });
  });

  it('names PORT when its value is not a port', () => {
    expect(problemAt(problemsOf(FILE, { env: { PORT: 'eighty' } }), 'server.port')).toBe(
      'expected number, received string (from environment variable PORT)',
    );
  });

  it('names --port when its value is out of range', () => {
    expect(problemAt(problemsOf(FILE, { overrides: { port: 70_000 } }), 'server.port')).toMatch(/\(from --port\)$/);
  });

  it('lets REDIS_URL set sessions.redisUrl and so select the Redis store', () => {
    const config = parseConfigText('{}', 'yaml', { REDIS_URL: 'redis://redis:6379' });
    expect(config.sessions).toMatchObject({ redisUrl: 'redis://redis:6379', store: 'redis' });
  });

  it('names REDIS_URL when it is not a redis URL', () => {
    expect(problemAt(problemsOf('{}', { env: { REDIS_URL: 'http://redis' } }), 'sessions.redisUrl')).toMatch(
      /redis:\/\/.*\(from environment variable REDIS_URL\)/,
    );
  });

  it('defaults the store to redis when the file sets a redisUrl', () => {
    const config = parseConfigText('sessions:\n  redisUrl: rediss://cache.example:6380\n', 'yaml', {});
    expect(config.sessions.store).toBe('redis');
  });

  it('defaults the store to memory without a redisUrl', () => {
    expect(parseConfigText('sessions:\n  redisUrl: ${REDIS_URL:-}\n', 'yaml', {}).sessions.store).toBe('memory');
  });

  it('keeps an explicit memory store even when REDIS_URL is set', () => {
    const config = parseConfigText('sessions: {store: memory}\n', 'yaml', { REDIS_URL: 'redis://redis:6379' });
    expect(config.sessions.store).toBe('memory');
  });

  it('rejects the redis store without a redisUrl, at sessions.redisUrl', () => {
    expect(problemAt(problemsOf('sessions: {store: redis}\n'), 'sessions.redisUrl')).toMatch(/required when sessions.store is "redis"/);
  });

  it('derives publicUrl from host, port and path after the overrides', () => {
    const config = parseConfigText('server: {path: /gateway}\n', 'yaml', { PORT: '9000' }, { host: '10.1.2.3' });
    expect(config.server.publicUrl).toBe('http://10.1.2.3:9000/gateway');
  });

  it('brackets an IPv6 host in the derived publicUrl', () => {
    expect(parseConfigText('server: {host: "::1"}\n', 'yaml', {}).server.publicUrl).toBe('http://[::1]:8080/mcp');
  });

  it('keeps an explicit publicUrl', () => {
    const config = parseConfigText('server: {publicUrl: "https://mcp.example.com/mcp"}\n', 'yaml', { PORT: '9000' });
    expect(config.server.publicUrl).toBe('https://mcp.example.com/mcp');
  });
});
