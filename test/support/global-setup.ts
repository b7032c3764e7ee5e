// Finds a Redis for the integration tests, once per run, and hands its URL to every test file through
// vitest's provide/inject. In order: REDIS_URL; a testcontainers container; a redis-server from PATH.
// When none works the URL is undefined and test/support/redis.ts fails the Redis tests with the
// reasons, rather than skipping them: a CI without Redis must go red, not quietly green.
import { debuglog } from 'node:util';
import type { TestProject } from 'vitest/node';
import { startRedisContainer } from './redis-container.js';
import { startRedisServer } from './redis-server-process.js';
import type { RunningRedis } from './running-redis.js';

// Silent unless NODE_DEBUG=switchboard: "no container runtime" is the normal case on CI, not news.
const debug = debuglog('switchboard');

const STARTERS: readonly { name: string; start: () => Promise<RunningRedis> }[] = [
  { name: 'testcontainers', start: startRedisContainer },
  { name: 'redis-server', start: startRedisServer },
];

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const fromEnvironment = process.env.REDIS_URL;
  if (fromEnvironment) {
    debug('Redis for tests: REDIS_URL');
    project.provide('redisUrl', fromEnvironment);
    project.provide('redisUnavailableReason', undefined);
    return async () => {};
  }

  const problems: string[] = [];
  for (const { name, start } of STARTERS) {
    try {
      const redis = await start();
      debug('Redis for tests: %s from %s', redis.url, name);
      project.provide('redisUrl', redis.url);
      project.provide('redisUnavailableReason', undefined);
      return () => redis.stop();
    } catch (error) {
      const problem = `${name}: ${error instanceof Error ? error.message : String(error)}`;
      debug('Redis for tests: %s', problem);
      problems.push(problem);
    }
  }
  project.provide('redisUrl', undefined);
  project.provide('redisUnavailableReason', `REDIS_URL is not set; ${problems.join('; ')}`);
  return async () => {};
}
