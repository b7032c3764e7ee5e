// All configured upstreams of one replica, started in parallel. One that fails to start does not
// hold up the others: it retries on its own while the gateway serves the rest.
import type { Config } from '../config/schema.js';
import type { Logger } from '../observe/logger.js';
import { SupervisedUpstream } from './supervised-upstream.js';
import type { Upstream } from './types.js';

export interface UpstreamPool {
  /** In config order, enabled servers only. */
  readonly all: readonly Upstream[];
  get(name: string): Upstream | undefined;
  /** Resolves once every upstream has finished its first connection attempt, or after maxWaitMs. */
  whenSettled(maxWaitMs: number): Promise<void>;
  stop(): Promise<void>;
}

export function startUpstreams(config: Config, logger: Logger): UpstreamPool {
  const upstreams = Object.entries(config.mcpServers)
    .filter(([, server]) => server.enabled)
    .map(([name, server]) => new SupervisedUpstream(name, server, logger));
  const byName = new Map<string, Upstream>(upstreams.map((upstream) => [upstream.name, upstream]));
  for (const upstream of upstreams) upstream.start();

  return {
    all: upstreams,
    get: (name) => byName.get(name),
    async whenSettled(maxWaitMs) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, maxWaitMs);
        timer.unref();
      });
      await Promise.race([Promise.all(upstreams.map((upstream) => upstream.whenSettled())), timeout]);
      clearTimeout(timer);
    },
    async stop() {
      await Promise.all(upstreams.map((upstream) => upstream.stop()));
    },
  };
}
