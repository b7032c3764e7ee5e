// What an operator may do from the admin listener, with the outcome each action reports. Refusals
// say what to do instead; nothing here knows HTTP (http/admin/ maps outcomes to statuses).
import type { ReloadOutcome } from '../reload.js';
import type { OperatorSources } from './sources.js';
import { upstreamEntries, type UpstreamEntry } from './status.js';

/** How long a restart waits for the new connection before answering with the state it has then. */
const RESTART_WAIT_MS = 15_000;
/** And then for the catalogue to have its lists again, so that its tools are callable when the answer comes. */
const LISTS_WAIT_MS = 5_000;

export type ActionRefusal = {
  readonly outcome: 'refused';
  /** not-found: no such server; conflict: it cannot be done now or for this server. */
  readonly code: 'not-found' | 'conflict';
  readonly message: string;
};

export type RestartOutcome = { readonly outcome: 'ok'; readonly upstream: UpstreamEntry } | ActionRefusal;

/**
 * Restarts the shared connection of one server: drops it and connects anew (counted as a restart),
 * then answers once the new connection is up and listed in the catalogue, or has failed (or after
 * RESTART_WAIT_MS).
 */
export async function restartUpstream(sources: OperatorSources, name: string): Promise<RestartOutcome> {
  const server = sources.config().mcpServers[name];
  if (server === undefined) return { outcome: 'refused', code: 'not-found', message: `no server named "${name}" is configured` };
  if (!server.enabled) return { outcome: 'refused', code: 'conflict', message: `server "${name}" is disabled (enabled: false); there is nothing to restart` };
  if (server.isolation === 'session') {
    return {
      outcome: 'refused',
      code: 'conflict',
      message: `server "${name}" has isolation: session: each session has its own connection, started with the session and closed when it ends or idles out; there is no shared connection to restart`,
    };
  }
  const upstream = sources.upstreams.get(name);
  if (!upstream?.restart) return { outcome: 'refused', code: 'conflict', message: `server "${name}" has no connection on this replica to restart` };
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, RESTART_WAIT_MS);
    timer.unref();
  });
  await Promise.race([upstream.restart(), waited]);
  clearTimeout(timer);
  if (upstream.state === 'ready') await sources.catalog.settled(LISTS_WAIT_MS);
  const entry = (await upstreamEntries(sources)).find((candidate) => candidate.name === name)!;
  return { outcome: 'ok', upstream: entry };
}

export type AdminReloadOutcome = ReloadOutcome | ActionRefusal;

export async function reloadConfig(sources: OperatorSources): Promise<AdminReloadOutcome> {
  if (!sources.reload) {
    return { outcome: 'refused', code: 'conflict', message: 'this gateway was not started from a config file, so there is nothing to reload from' };
  }
  return sources.reload();
}
