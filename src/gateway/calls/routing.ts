// Which upstream owns an exposed name or URI. Lookups go through the merged view first; a name
// that is not there but carries the prefix of a configured server that is down (or that the server's
// tool overrides rename a tool to) gets an error naming that server, so a client can tell "no such
// tool" from "its server is down".
import type { CatalogView, ExposedNamedItem } from '../catalogue/catalog-view.js';
import { rpcErrors } from '../errors.js';
import { serverSlug } from '../../config/server-names.js';
import { parseExposedUri } from '../catalogue/namespace.js';
import { toolsByUpstreamName } from '../catalogue/upstream-names.js';
import { NO_OVERRIDES, type ToolOverrides, type ToolOverridesByServer } from '../catalogue/tool-overrides.js';
import { UpstreamUnavailableError } from '../../upstream/errors.js';

export interface ConfiguredServer {
  readonly name: string;
  readonly prefix: string;
  /** Its tool overrides (config `tools`), by the upstream's own tool name. */
  readonly tools?: ToolOverrides | undefined;
  isReady(): boolean;
  /** Why it is not ready, as the error a request would get (an upstream that refused its credentials says so). */
  unavailability?(): Error | undefined;
}

export interface Routing {
  /** Configured, enabled servers in config order. */
  readonly servers: readonly ConfiguredServer[];
  readonly separator: string;
  /** namespace.maxNameLength: with the separator, how a session's own view names its items (catalogue/namespace.ts). */
  readonly maxNameLength: number;
}

export interface UpstreamTarget {
  readonly server: string;
  /** The upstream's own URI. */
  readonly uri: string;
}

export function routeTool(view: CatalogView, routing: Routing, exposedName: string): ExposedNamedItem {
  return view.toolsByName.get(exposedName) ?? routeUpstreamToolName(view, routing, exposedName);
}

/**
 * A name that is no exposed one may be an upstream's own (an MCP App calling its server's tool):
 * it names a tool when exactly one server in the caller's view has a tool of that name. The view
 * is already cut to the endpoint and the policy, so both apply as for the exposed name.
 */
function routeUpstreamToolName(view: CatalogView, routing: Routing, name: string): ExposedNamedItem {
  const owners = toolsByUpstreamName(view.tools, name);
  if (owners.length === 1) return owners[0]!;
  if (owners.length > 1) throw rpcErrors.ambiguousTool(name, owners.map((tool) => String(tool.item.name)));
  return failNamed(routing, name, rpcErrors.unknownTool(name));
}

export function routePrompt(view: CatalogView, routing: Routing, exposedName: string): ExposedNamedItem {
  return view.promptsByName.get(exposedName) ?? failNamed(routing, exposedName, rpcErrors.unknownPrompt(exposedName));
}

function failNamed(routing: Routing, exposedName: string, unknown: Error): never {
  const owner =
    routing.servers.find((server) => renamesTo(server, exposedName)) ??
    routing.servers.find((server) => server.prefix !== '' && exposedName.startsWith(`${server.prefix}${routing.separator}`));
  if (owner && !owner.isReady()) throw owner.unavailability?.() ?? new UpstreamUnavailableError(owner.name, 'it is not connected');
  throw unknown;
}

function renamesTo(server: ConfiguredServer, exposedName: string): boolean {
  for (const override of server.tools?.values() ?? []) if (override.name === exposedName && override.hidden !== true) return true;
  return false;
}

/** The configured servers' tool overrides, for building a view (catalogue/catalog-view.ts). */
export function toolOverridesOf(routing: Routing): ToolOverridesByServer {
  const byServer = new Map(routing.servers.flatMap((server) => (server.tools ? [[server.name, server.tools] as const] : [])));
  return byServer.size > 0 ? byServer : NO_OVERRIDES;
}

export function routeUri(view: CatalogView, routing: Routing, exposedUri: string): UpstreamTarget {
  const target = findUriOwner(view, routing, exposedUri);
  // A URI that policy hides gets exactly the error of one that does not exist.
  if (view.allows && !view.allows(target.server, target.uri)) throw rpcErrors.unknownResource(exposedUri);
  return target;
}

function findUriOwner(view: CatalogView, routing: Routing, exposedUri: string): UpstreamTarget {
  // A URI an unprefixed server lists is its own, even when it looks tagged (`ui://basic/app.html`
  // of an unprefixed server, with a prefixed server "basic"): the merged list kept only one of the
  // two, and a read goes where the list says.
  const listedBy = view.unprefixedResources.get(exposedUri);
  if (listedBy !== undefined) return { server: listedBy, uri: exposedUri };

  const tagged = parseExposedUri(exposedUri);
  // The tag is the server's slug; the schema keeps slugs of enabled servers unique.
  const owner = tagged && routing.servers.find((server) => server.prefix !== '' && serverSlug(server.name) === tagged.slug);
  if (tagged && owner) return { server: owner.name, uri: tagged.uri };
  const template = view.resourceTemplates.find((candidate) => candidate.matcher?.test(exposedUri));
  if (template) return { server: template.server, uri: exposedUri };
  // One unprefixed server is the only place an untagged URI can belong: let it decide.
  const unprefixed = routing.servers.filter((server) => server.prefix === '');
  if (unprefixed.length === 1 && unprefixed[0]) return { server: unprefixed[0].name, uri: exposedUri };
  throw rpcErrors.unknownResource(exposedUri);
}

/** A completion/complete ref to a template names the exposed template itself, not a URI it expands to. */
export function routeTemplateRef(view: CatalogView, routing: Routing, exposedTemplate: string): UpstreamTarget {
  const template = view.resourceTemplates.find((candidate) => candidate.item.uriTemplate === exposedTemplate);
  if (template) return { server: template.server, uri: template.uriTemplate };
  return routeUri(view, routing, exposedTemplate);
}
