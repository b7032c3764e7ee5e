// Renames in `mcpServers.<name>.tools` that cannot work, found from the config alone. Every exposed
// tool name must be unique, but most of them come from upstream lists that only exist at run time;
// what the file does say is each rename, the prefix of each server, and the upstream names that
// overrides mention. So a rename is refused when it is another override's rename, when it is the
// natural name (`{prefix}{separator}{name}`) of a tool another override names, or when it falls in
// another server's part of the namespace (`{prefix}{separator}...`), where it could take the name of
// a tool that server lists now or later. Pure: the schema reports what this returns.
import type { KeyPath, PathProblem } from './key-path.js';

/** The strictest rule common LLM APIs apply to function names (as in src/gateway/catalogue/namespace.ts). */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export interface ServerToolNaming {
  /** The server's config key. */
  readonly server: string;
  /** Its prefix ("" exposes names unprefixed). */
  readonly prefix: string;
  readonly tools: Readonly<Record<string, { readonly name?: string | undefined; readonly hidden?: boolean | undefined }>>;
}

interface NamedTool {
  readonly server: string;
  readonly tool: string;
}

/** Problems of enabled servers' renames, in config order, each at the rename's key path. */
export function toolRenameProblems(servers: readonly ServerToolNaming[], separator: string): PathProblem[] {
  const natural = (server: ServerToolNaming, tool: string) => (server.prefix === '' ? tool : `${server.prefix}${separator}${tool}`);
  const naturals = new Map<string, NamedTool>();
  for (const server of servers) {
    for (const [tool, override] of Object.entries(server.tools)) {
      if (override.hidden === true) continue;
      // A rename to the tool's own natural name changes nothing: it is a natural name like the others.
      const name = natural(server, tool);
      if ((override.name === undefined || override.name === name) && TOOL_NAME.test(name) && !naturals.has(name)) {
        naturals.set(name, { server: server.server, tool });
      }
    }
  }

  const problems: PathProblem[] = [];
  const renames = new Map<string, NamedTool>();
  for (const server of servers) {
    for (const [tool, override] of Object.entries(server.tools)) {
      const rename = override.name;
      if (rename === undefined || override.hidden === true || rename === natural(server, tool)) continue;
      const path: KeyPath = ['mcpServers', server.server, 'tools', tool, 'name'];
      const message = clash(rename, { server: server.server, tool }, renames, naturals, servers, separator);
      if (message !== undefined) problems.push({ path, message });
      if (!renames.has(rename)) renames.set(rename, { server: server.server, tool });
    }
  }
  return problems;
}

function clash(
  rename: string,
  self: NamedTool,
  renames: ReadonlyMap<string, NamedTool>,
  naturals: ReadonlyMap<string, NamedTool>,
  servers: readonly ServerToolNaming[],
  separator: string,
): string | undefined {
  const renamed = renames.get(rename);
  if (renamed !== undefined) {
    return `${label(renamed)} and ${label(self)} are both renamed to "${rename}"; give one a different name`;
  }
  const named = naturals.get(rename);
  if (named !== undefined) {
    return `"${rename}" is the exposed name of ${label(named)}; choose a name no other tool has`;
  }
  const owner = namespaceOwner(rename, servers, separator);
  if (owner !== undefined && owner.server !== self.server) {
    return `"${rename}" starts with "${owner.prefix}${separator}", the names of server "${owner.server}", and could take the name of a tool it lists; choose a name outside that prefix`;
  }
  return undefined;
}

/** The server whose names start like `name` (the longest matching prefix, since prefixes may nest). */
function namespaceOwner(name: string, servers: readonly ServerToolNaming[], separator: string): ServerToolNaming | undefined {
  let owner: ServerToolNaming | undefined;
  for (const server of servers) {
    if (server.prefix === '' || !name.startsWith(`${server.prefix}${separator}`)) continue;
    if (owner === undefined || server.prefix.length > owner.prefix.length) owner = server;
  }
  return owner;
}

function label({ server, tool }: NamedTool): string {
  return `"${server}/${tool}"`;
}
