// What makes a result a 2026-07-28 result: `resultType`, the server's identity in `_meta`, and on
// the cacheable methods honest cache hints. Errors get the codes a 2026 client may receive.
import { copyWith, metaWith, withMetaEntry } from '../../protocol/copy-with.js';
import { presetJsonWith } from '../../protocol/json-text.js';
import { GATEWAY_IMPLEMENTATION } from '../../version.js';
import type { JsonObject } from '../../protocol/json.js';
import type { JsonRpcId, JsonRpcResponse } from '../../protocol/json-rpc.js';
import { modernError } from './codes.js';
import { META } from './envelope.js';

export const SERVER_INFO = Object.freeze({ ...GATEWAY_IMPLEMENTATION, title: 'Switchboard MCP gateway' });

/** What a result without _meta of its own gets: frozen, so presetJsonWith makes its text once. */
const COMPLETE = Object.freeze({ resultType: 'complete', _meta: Object.freeze({ [META.serverInfo]: SERVER_INFO }) });

const LIST_METHODS = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'server/discover']);

export interface CachePolicy {
  /** How long the merged lists may be taken as fresh (Gateway.listsFreshForMs). */
  readonly listsFreshForMs: number;
  /** Whether the lists differ by principal (a policy filters them). */
  readonly privateViews: boolean;
}

export function withServerInfo(result: JsonObject): JsonObject {
  return withMetaEntry(result, META.serverInfo, SERVER_INFO);
}

/**
 * A final result as a 2026 client gets it: one copy of the upstream's result, made with copyWith
 * (every 2026 call passes here). `cache` is asked only for the results that carry cache hints.
 */
export function completeResult(method: string, result: JsonObject, cache: () => CachePolicy): JsonObject {
  // A call the gateway made a task of (handlers/tasks.ts) is already shaped; one property read otherwise.
  if (result.resultType === 'task') return withServerInfo(result);
  // Most results (a tool's) carry no cache hints and no _meta of their own: what they get is the same every time.
  if (result._meta === undefined && !LIST_METHODS.has(method) && method !== 'resources/read') {
    return presetJsonWith(copyWith(result, COMPLETE), result, COMPLETE);
  }
  const additions: JsonObject = { resultType: 'complete', _meta: metaWith(result, META.serverInfo, SERVER_INFO) };
  if (LIST_METHODS.has(method)) {
    // server/discover is the same for everyone; the lists are not once a policy filters them.
    const { listsFreshForMs, privateViews } = cache();
    additions.ttlMs = listsFreshForMs;
    additions.cacheScope = method !== 'server/discover' && privateViews ? 'private' : 'public';
  } else if (method === 'resources/read') {
    // A 2026 upstream's own hint bounds ours; a 2025 upstream promises nothing.
    const upstreamTtl = typeof result.ttlMs === 'number' && result.ttlMs > 0 ? Math.floor(result.ttlMs) : 0;
    additions.ttlMs = upstreamTtl;
    additions.cacheScope = result.cacheScope === 'private' || cache().privateViews ? 'private' : 'public';
  }
  // A page of the catalogue keeps its text (catalogue/view-pages.ts): this result's is that text and ours.
  return presetJsonWith(copyWith(result, additions), result, additions);
}

export function inputRequiredResult(inputRequests: JsonObject, requestState: string): JsonObject {
  return withServerInfo({ resultType: 'input_required', inputRequests, requestState });
}

/** Re-addresses a response (a retry has its own id) and maps its error, if any, for 2026. */
export function modernResponse(id: JsonRpcId, response: JsonRpcResponse, shape: (result: JsonObject) => JsonObject): JsonRpcResponse {
  if ('error' in response) return { jsonrpc: '2.0', id, error: modernError(response.error) };
  return { jsonrpc: '2.0', id, result: shape(response.result) };
}
