// All configured upstreams of one replica, started in parallel. One that fails to start does not
// hold up the others: it retries on its own while the gateway serves the rest. A config reload
// adds, removes and replaces upstreams here while everything else keeps running.
import type { Config, UpstreamConfig } from '../config/schema.js';
import type { Logger } from '../observe/logger.js';
import { SupervisedUpstream } from './supervised-upstream.js';
import type { Upstream } from './types.js';

export interface UpstreamChanges {
  readonly added: readonly Upstream[];
  readonly removed: readonly Upstream[];
}

export class UpstreamPool {
  #upstreams: Upstream[] = [];
  readonly #listeners = new Set<(changes: UpstreamChanges) => void>();

  constructor(
    config: Config,
    private readonly logger: Logger,
    private readonly create: (name: string, config: UpstreamConfig, logger: Logger) => Upstream = (name, server, log) =>
      new SupervisedUpstream(name, server, log),
  ) {
    this.#upstreams = enabledServers(config).map(([name, server]) => this.create(name, server, logger));
    for (const upstream of this.#upstreams) upstream.start();
  }

  /** In config order, enabled shared servers only. */
  get all(): readonly Upstream[] {
    return this.#upstreams;
  }

  get(name: string): Upstream | undefined {
    return this.#upstreams.find((upstream) => upstream.name === name);
  }

  /** Called after every reconcile() that changed something. */
  onChange(listener: (changes: UpstreamChanges) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Brings the pool to a new config: servers that are new start, servers that are gone stop,
   * servers whose config changed are replaced (stopped, then started anew). Returns their names.
   */
  async reconcile(previous: Config, next: Config): Promise<{ added: string[]; removed: string[]; changed: string[] }> {
    const before = new Map(enabledServers(previous));
    const after = new Map(enabledServers(next));
    const removedNames = [...before.keys()].filter((name) => !after.has(name));
    const addedNames = [...after.keys()].filter((name) => !before.has(name));
    const changedNames = [...after.keys()].filter(
      (name) => before.has(name) && connectionJson(before.get(name)) !== connectionJson(after.get(name)),
    );
    const leaving = this.#upstreams.filter((upstream) => removedNames.includes(upstream.name) || changedNames.includes(upstream.name));
    const arriving = [...addedNames, ...changedNames].map((name) => this.create(name, after.get(name) as UpstreamConfig, this.logger));
    const byName = new Map([...this.#upstreams, ...arriving].filter((upstream) => !leaving.includes(upstream)).map((u) => [u.name, u]));
    this.#upstreams = [...after.keys()].map((name) => byName.get(name)).filter((upstream): upstream is Upstream => upstream !== undefined);
    if (leaving.length > 0 || arriving.length > 0) {
      for (const listener of this.#listeners) listener({ added: arriving, removed: leaving });
    }
    await Promise.all(leaving.map((upstream) => upstream.stop()));
    for (const upstream of arriving) upstream.start();
    return { added: addedNames, removed: removedNames, changed: changedNames };
  }

  /** Resolves once every upstream has finished its first connection attempt, or after maxWaitMs. */
  async whenSettled(maxWaitMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, maxWaitMs);
      timer.unref();
    });
    await Promise.race([Promise.all(this.#upstreams.map((upstream) => upstream.whenSettled())), timeout]);
    clearTimeout(timer);
  }

  async stop(): Promise<void> {
    await Promise.all(this.#upstreams.map((upstream) => upstream.stop()));
  }
}

/**
 * What the connection to a server depends on: all of its config but its tool overrides, which only
 * change how the gateway shows its tools, so editing them does not restart the upstream.
 */
function connectionJson(server: UpstreamConfig | undefined): string {
  if (server === undefined) return '';
  const { tools: _shownOnly, ...connection } = server;
  return JSON.stringify(connection);
}

/** The servers this pool runs: enabled, and shared (session-isolated ones have a connection per session). */
function enabledServers(config: Config): [string, UpstreamConfig][] {
  return Object.entries(config.mcpServers).filter(([, server]) => server.enabled && server.isolation === 'shared');
}
