// Endpoints (`endpoints:`): more MCP endpoints beside server.path, each a view of the same gateway
// cut down by `{server}/{name}` selectors. What the schema checks beyond each field's shape: that
// no endpoint's path overlaps another route of the gateway, and that each selector names a server
// of the config. Pure: the key path and message of each problem, for the schema to report.
import picomatch from 'picomatch';
import type { PathProblem } from './key-path.js';
import { serverSlug } from './server-names.js';

/** The label value (metrics) and audit field of requests to server.path. */
export const DEFAULT_ENDPOINT = 'default';
/** An endpoint's name is a metric label value and an audit field: a short word. */
export const ENDPOINT_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** Routes of the gateway that no endpoint may take. */
const FIXED_ROUTES = ['/healthz', '/readyz', '/metrics'];
const WELL_KNOWN = '/.well-known/';

export interface EndpointPaths {
  readonly path: string;
  readonly include: readonly string[];
  readonly exclude: readonly string[];
}

export interface ServerPaths {
  readonly path: string;
  readonly ssePath: string;
  /** The path of server.publicUrl: its metadata is served under it too. */
  readonly publicPath: string;
}

/** A path as routes compare it: one trailing "/" makes no other endpoint. */
function normalPath(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

export function endpointProblems(endpoints: Readonly<Record<string, EndpointPaths>>, server: ServerPaths, servers: readonly string[]): PathProblem[] {
  const problems: PathProblem[] = [];
  const taken = new Map<string, string>([[normalPath(server.path), 'server.path']]);
  if (server.ssePath !== '') {
    taken.set(normalPath(server.ssePath), 'server.ssePath');
    taken.set(`${normalPath(server.ssePath)}/message`, 'the legacy SSE transport (server.ssePath + "/message")');
  }
  if (normalPath(server.publicPath) !== normalPath(server.path)) taken.set(normalPath(server.publicPath), 'the path of server.publicUrl');
  for (const route of FIXED_ROUTES) taken.set(route, route);

  for (const [name, endpoint] of Object.entries(endpoints)) {
    const path = normalPath(endpoint.path);
    const owner = taken.get(path);
    if (path === normalPath(WELL_KNOWN) || path.startsWith(WELL_KNOWN)) {
      problems.push({ path: ['endpoints', name, 'path'], message: 'must not be under /.well-known/ (the gateway serves its metadata there)' });
    } else if (owner !== undefined) {
      problems.push({ path: ['endpoints', name, 'path'], message: `overlaps ${owner} ("${path}"); give this endpoint a path of its own` });
    } else {
      taken.set(path, `endpoint "${name}"`);
    }
    for (const key of ['include', 'exclude'] as const) {
      endpoint[key].forEach((pattern, index) => {
        const problem = selectorProblem(pattern, servers);
        if (problem !== undefined) problems.push({ path: ['endpoints', name, key, index], message: problem });
      });
    }
  }
  return problems;
}

/**
 * A selector's server part must name a configured server (by its name or slug, as policy patterns
 * do); a glob must match at least one. A typo would otherwise select nothing, silently.
 */
function selectorProblem(pattern: string, servers: readonly string[]): string | undefined {
  const slash = pattern.indexOf('/');
  if (slash <= 0) return undefined; // the pattern's own shape is checked by its schema
  const serverPart = pattern.slice(0, slash);
  const matches = picomatch(serverPart, { dot: true, nonegate: true });
  if (servers.some((server) => matches(server) || matches(serverSlug(server)))) return undefined;
  const isGlob = picomatch.scan(serverPart).isGlob;
  return isGlob
    ? `"${serverPart}" matches no server in mcpServers`
    : `unknown server "${serverPart}": mcpServers has ${servers.length === 0 ? 'no servers' : servers.map((server) => `"${server}"`).join(', ')}`;
}
