// The gateway as one server, described from its upstreams: their merged capabilities and
// instructions (what initialize and server/discover answer), and how long the merged lists may be
// taken as fresh (the ttlMs of 2026 answers).
import type { Upstream } from '../upstream/types.js';
import { mergeCapabilities, mergeInstructions } from './sessions/initialize.js';
import type { JsonObject } from '../protocol/json.js';

/**
 * The longest the merged lists are promised fresh, even when every change is announced: an
 * upstream that is down drops out and one that recovers comes back, and a client that missed the
 * announcement (no listen open) should not hold a list longer than this.
 */
const LISTS_FRESH_MS = 60_000;

export function describeUpstreams(upstreams: readonly Upstream[], sessionIsolated: boolean, gatewayTasks = false): { capabilities: JsonObject; instructions: string | undefined } {
  const announcements = upstreams
    .filter((upstream) => upstream.state === 'ready' && upstream.info)
    .map((upstream) => ({
      server: upstream.name,
      capabilities: upstream.info?.capabilities ?? {},
      instructions: upstream.info?.instructions,
    }));
  return { capabilities: mergeCapabilities(announcements, sessionIsolated, gatewayTasks), instructions: mergeInstructions(announcements) };
}

/**
 * As long as a change is announced (every upstream offering a list says it announces changes to
 * it, and the gateway passes that on), else 0: an upstream that changes silently can change the
 * lists at any moment, and so can a session's own isolated upstreams.
 */
export function listsFreshForMs(upstreams: readonly Upstream[], sessionIsolated: boolean): number {
  if (sessionIsolated) return 0;
  for (const upstream of upstreams) {
    const capabilities = upstream.info?.capabilities ?? {};
    for (const kind of ['tools', 'prompts', 'resources'] as const) {
      const offered = capabilities[kind] as { listChanged?: unknown } | undefined;
      if (offered !== undefined && offered.listChanged !== true) return 0;
    }
  }
  return LISTS_FRESH_MS;
}
