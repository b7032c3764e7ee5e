// Redis in a container through testcontainers, for machines with a container engine (a developer's
// laptop with Docker or Podman). Without one it fails within milliseconds.
import type { RunningRedis } from './running-redis.js';

/** A Docker socket whose daemon hangs should not stall the whole test run. */
const RUNTIME_PROBE_TIMEOUT_MS = 5_000;

export async function startRedisContainer(): Promise<RunningRedis> {
  // Imported here, not at the top: it costs ~0.5 s and is not needed when REDIS_URL is set.
  const { GenericContainer, Wait, getContainerRuntimeClient } = await import('testcontainers');
  await withTimeout(getContainerRuntimeClient(), RUNTIME_PROBE_TIMEOUT_MS, 'no container runtime answered');
  const container = await new GenericContainer('redis:7-alpine')
    .withExposedPorts(6379)
    .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'))
    .start();
  return {
    url: `redis://${container.getHost()}:${container.getMappedPort(6379)}`,
    stop: async () => {
      await container.stop();
    },
  };
}

async function withTimeout<T>(promise: Promise<T>, ms: number, problem: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${problem} within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
