// Which session-isolated servers a request must list before it can be served. Listing one opens the
// caller's own connection to it (a process, an upstream session, a token exchange): a request that
// asks nothing of them (ping, initialize, a call to a shared server) must not pay for that, nor
// wait on one that is slow. A list asks every one of them; a named item asks only the servers that
// could expose that name; anything else asks none.
import { parseExposedUri } from '../catalogue/namespace.js';
import { FIND_TOOLS } from '../catalogue/tool-search.js';
import { serverSlug } from '../../config/server-names.js';
import { isJsonObject, type JsonObject } from '../../protocol/json.js';
import type { IsolatedServer } from './isolated-servers.js';
import type { ToolOverrides } from '../catalogue/tool-overrides.js';

/** Every isolated server, or only these (by name; none: the shared view is enough). */
export type NeededServers = 'all' | readonly string[];

export interface NamingRules {
  readonly separator: string;
  /** A server's tool overrides, which may give a tool any name (no prefix). */
  toolsOf(server: string): ToolOverrides | undefined;
  /**
   * Whether a shared server's tool is exposed under `name`. Asked only of a tool name that no
   * session-isolated server's prefix or rename accounts for: when no shared tool has it either, it
   * may be an upstream's own name (an MCP App's call, routing.ts), which any of them may have.
   */
  isSharedTool?(name: string): boolean;
}

const LIST_METHODS = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);
/** A request that needs no session-isolated server: it is served from the shared view. */
export const NO_SERVERS: readonly string[] = [];

/**
 * `params` as the handler reads them (for search mode's call_tool, the params of the tool it calls;
 * its find_tools searches every tool, so it asks every server).
 */
export function neededServers(method: string, params: JsonObject, servers: readonly IsolatedServer[], rules: NamingRules, searchMode: boolean): NeededServers {
  if (LIST_METHODS.has(method)) return 'all';
  switch (method) {
    case 'tools/call':
      if (searchMode && params.name === FIND_TOOLS) return 'all';
      return byToolName(params.name, servers, rules);
    case 'prompts/get':
      return byName(params.name, servers, rules, false);
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe':
      return byUri(params.uri, servers);
    case 'completion/complete': {
      const ref = isJsonObject(params.ref) ? params.ref : {};
      return ref.type === 'ref/prompt' ? byName(ref.name, servers, rules, false) : byUri(ref.uri, servers);
    }
    default:
      return NO_SERVERS;
  }
}

/** byName for a tool, or every server for a name that may be an upstream's own (see NamingRules.isSharedTool). */
function byToolName(name: unknown, servers: readonly IsolatedServer[], rules: NamingRules): NeededServers {
  const named = byName(name, servers, rules, true);
  if (typeof name !== 'string' || rules.isSharedTool === undefined) return named;
  const namedByPrefixOrRename = named.some((candidate) => servers.find((server) => server.name === candidate)?.prefix !== '');
  return namedByPrefixOrRename || rules.isSharedTool(name) ? named : 'all';
}

/** The servers whose exposed names could include `name`: by prefix, unprefixed, or renamed to it. */
function byName(name: unknown, servers: readonly IsolatedServer[], rules: NamingRules, tool: boolean): readonly string[] {
  if (typeof name !== 'string') return NO_SERVERS;
  return servers
    .filter((server) => server.prefix === '' || hasPrefix(name, `${server.prefix}${rules.separator}`) || (tool && renamesTo(rules.toolsOf(server.name), name)))
    .map((server) => server.name);
}

/** A rewritten name: what was kept of the natural one, "_" and a hash (catalogue/namespace.ts). */
const REWRITTEN = /^(.*)_[0-9a-f]{8,}$/;

/**
 * Whether `name` is one of a prefixed server's: it starts with the prefix and separator, or it was
 * rewritten and cut so short (namespace.maxNameLength) that only the start of them is left.
 */
function hasPrefix(name: string, start: string): boolean {
  if (name.startsWith(start)) return true;
  const kept = REWRITTEN.exec(name)?.[1];
  return kept !== undefined && kept.length < start.length && (start.startsWith(kept) || start.replace(/[^A-Za-z0-9_-]/g, '_').startsWith(kept));
}

/** A tagged URI names its server (and is routed without a list); an untagged one can be an unprefixed server's. */
function byUri(uri: unknown, servers: readonly IsolatedServer[]): NeededServers {
  if (typeof uri !== 'string') return NO_SERVERS;
  const tagged = parseExposedUri(uri);
  const owner = tagged && servers.find((server) => server.prefix !== '' && serverSlug(server.name) === tagged.slug);
  if (owner) return [owner.name];
  return servers.filter((server) => server.prefix === '').map((server) => server.name);
}

function renamesTo(tools: ToolOverrides | undefined, name: string): boolean {
  for (const override of tools?.values() ?? []) if (override.name === name) return true;
  return false;
}
