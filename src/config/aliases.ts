// Server entries copied from other MCP clients' files work unchanged: VS Code, Cursor and Claude
// Code write `type: stdio | http | sse` (plus "streamable-http" in some), and several write
// `disabled: true`. They are rewritten into this gateway's own keys before the schema, which stays
// strict about everything else.
import { isPlainObject, type KeyPath, type PathProblem } from './key-path.js';

/** The `type` values other clients write for an HTTP server, and the transport each one means. */
export const TRANSPORT_OF_TYPE: Readonly<Record<string, 'streamable-http' | 'sse'>> = {
  http: 'streamable-http',
  'streamable-http': 'streamable-http',
  sse: 'sse',
};

export interface AliasNormalisation {
  readonly tree: Record<string, unknown>;
  readonly problems: readonly PathProblem[];
  /** Servers whose `type` was wrong; the schema's "command or url" message would repeat it. */
  readonly reportedServers: readonly KeyPath[];
}

export function normaliseServerAliases(tree: Record<string, unknown>): AliasNormalisation {
  const problems: PathProblem[] = [];
  const reportedServers: KeyPath[] = [];
  if (!isPlainObject(tree.mcpServers)) return { tree, problems, reportedServers };
  const servers = Object.entries(tree.mcpServers).map(([name, entry]) => {
    if (!isPlainObject(entry)) return [name, entry];
    const at: KeyPath = ['mcpServers', name];
    const before = problems.length;
    const typed = normaliseType(entry, at, problems);
    if (problems.length > before) reportedServers.push(at);
    return [name, normaliseDisabled(typed, at, problems)];
  });
  return { tree: { ...tree, mcpServers: Object.fromEntries(servers) }, problems, reportedServers };
}

function normaliseType(entry: Record<string, unknown>, at: KeyPath, problems: PathProblem[]): Record<string, unknown> {
  if (!('type' in entry)) return entry;
  const { type, ...rest } = entry;
  if (type === 'stdio') {
    if (!('command' in rest) || 'url' in rest) {
      problems.push({ path: [...at, 'type'], message: 'type "stdio" needs "command" (and no "url")' });
    }
    return rest;
  }
  const transport = typeof type === 'string' ? TRANSPORT_OF_TYPE[type] : undefined;
  if (transport === undefined) {
    problems.push({ path: [...at, 'type'], message: 'must be one of "stdio", "http", "streamable-http", "sse"' });
    return rest;
  }
  if (!('url' in rest) || 'command' in rest) {
    problems.push({ path: [...at, 'type'], message: `type "${String(type)}" needs "url" (and no "command")` });
    return rest;
  }
  if ('transport' in rest && rest.transport !== transport) {
    problems.push({
      path: [...at, 'transport'],
      message: `conflicts with type "${String(type)}" (which means transport "${transport}"); keep one of them`,
    });
    return rest;
  }
  return { ...rest, transport };
}

function normaliseDisabled(entry: Record<string, unknown>, at: KeyPath, problems: PathProblem[]): Record<string, unknown> {
  if (!('disabled' in entry)) return entry;
  const { disabled, ...rest } = entry;
  // Same leniency as the schema's booleans, since `${...}` always yields a string.
  const value = disabled === 'true' ? true : disabled === 'false' ? false : disabled;
  if (typeof value !== 'boolean') {
    problems.push({ path: [...at, 'disabled'], message: 'expected boolean' });
    return rest;
  }
  if ('enabled' in rest) {
    const enabled = rest.enabled === 'true' ? true : rest.enabled === 'false' ? false : rest.enabled;
    if (enabled === value) {
      problems.push({ path: [...at, 'disabled'], message: 'contradicts "enabled"; keep one of them' });
    }
    return rest;
  }
  return { ...rest, enabled: !value };
}
