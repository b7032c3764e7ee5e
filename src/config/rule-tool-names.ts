// Rules name tools by the upstream's own name: policy and endpoint patterns (`github/search_code`)
// and per-tool limits (`limits.servers.github.tools.search_code`). The name a client sees is
// another: prefixed (`github__search_code`) or renamed by an override (`find_code`). A rule
// written with that name would match nothing, without a word, so it is refused with the name to
// write. Only what the file shows is refused: a server part that is a glob names no one server,
// and a name that is a key of the server's `tools` overrides is an upstream name.
import picomatch from 'picomatch';
import { formatKeyPath, type KeyPath, type PathProblem } from './key-path.js';
import { serverSlug } from './server-names.js';

export interface ServerNaming {
  readonly server: string;
  /** Its prefix ("" exposes names unprefixed). */
  readonly prefix: string;
  readonly tools: Readonly<Record<string, { readonly name?: string | undefined; readonly hidden?: boolean | undefined }>>;
}

/** A `{server}/{name}` pattern and where it is written. */
export interface PatternSite {
  readonly path: KeyPath;
  readonly pattern: string;
}

/** A per-tool limit: limits.servers.<server>.tools.<tool>, the server by its config name. */
export interface ToolLimitSite {
  readonly server: string;
  readonly tool: string;
}

export function ruleToolNameProblems(
  servers: readonly ServerNaming[],
  separator: string,
  patterns: readonly PatternSite[],
  toolLimits: readonly ToolLimitSite[],
): PathProblem[] {
  const problems: PathProblem[] = [];
  for (const { path, pattern } of patterns) {
    const slash = pattern.indexOf('/');
    if (slash <= 0) continue; // not {server}/{name}: the schema says so
    const serverPart = pattern.slice(0, slash);
    if (picomatch.scan(serverPart).isGlob) continue;
    const server = servers.find((candidate) => candidate.server === serverPart || serverSlug(candidate.server) === serverPart);
    const meant = server && upstreamNameOf(server, pattern.slice(slash + 1), separator);
    if (meant !== undefined) problems.push({ path, message: `${meant.why}; patterns name the upstream's own name: write "${serverPart}/${meant.name}"` });
  }
  for (const { server: name, tool } of toolLimits) {
    const server = servers.find((candidate) => candidate.server === name);
    const meant = server && upstreamNameOf(server, tool, separator);
    if (meant !== undefined) {
      problems.push({ path: ['limits', 'servers', name, 'tools', tool], message: `${meant.why}; limits name the upstream's own name: write tools.${meant.name}` });
    }
  }
  return problems;
}

/** The upstream name meant when `name` is one a client sees, and why; undefined when it is not one. */
function upstreamNameOf(server: ServerNaming, name: string, separator: string): { name: string; why: string } | undefined {
  if (Object.hasOwn(server.tools, name)) return undefined;
  const renamed = Object.entries(server.tools).find(([, override]) => override.name === name && override.hidden !== true);
  if (renamed !== undefined) return { name: renamed[0], why: `"${name}" is the name clients see for the tool "${renamed[0]}" of "${server.server}" (renamed in mcpServers)` };
  const exposedPrefix = `${server.prefix}${separator}`;
  if (server.prefix !== '' && name.startsWith(exposedPrefix) && name.length > exposedPrefix.length) {
    // An upstream may name a tool so itself (`slack_post_message` with the separator "_"): an
    // override entry under its own name, even an empty one, says so and lifts the refusal.
    return {
      name: name.slice(exposedPrefix.length),
      why: `"${name}" is an exposed name, with the prefix "${exposedPrefix}" the gateway adds (if the upstream's own name is "${name}", add it under ${formatKeyPath(['mcpServers', server.server, 'tools'])})`,
    };
  }
  return undefined;
}
