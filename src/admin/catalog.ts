// The catalogue as an operator browses it: per server, the names clients are offered (and the
// upstream's own names behind them), the tools pinning withholds; and what one principal would be
// shown at one endpoint, decided by the same policy and endpoint selection the gateway applies.
// Servers with isolation: session have no shared lists: a session's own connection lists them.
import { z } from 'zod';
import type { Principal } from '../auth/principal.js';
import type { CatalogView } from '../gateway/catalogue/catalog-view.js';
import { filterCatalogView } from '../gateway/catalogue/filter-view.js';
import type { OperatorSources } from './sources.js';

export interface CatalogItem {
  /** As clients see it. */
  readonly name: string;
  /** The upstream's own name. */
  readonly upstreamName: string;
  readonly title?: string;
  readonly description?: string;
}

export interface CatalogResource {
  readonly uri: string;
  readonly upstreamUri: string;
  readonly name?: string;
}

export interface CatalogTemplate {
  readonly uriTemplate: string;
  readonly upstreamUriTemplate: string;
  readonly name?: string;
}

export interface ServerCatalog {
  readonly name: string;
  readonly isolation: 'shared' | 'session';
  readonly tools: readonly CatalogItem[];
  readonly prompts: readonly CatalogItem[];
  readonly resources: readonly CatalogResource[];
  readonly resourceTemplates: readonly CatalogTemplate[];
  /** Tools pinning keeps from clients, under the names they would have. */
  readonly withheld: readonly { readonly name: string; readonly upstreamName: string; readonly reason: string }[];
}

/** Every configured, enabled server (or the one named), in config order; undefined for an unknown name. */
export function catalogOf(sources: OperatorSources, server?: string): ServerCatalog[] | undefined {
  const servers = Object.entries(sources.config().mcpServers).filter(([, config]) => config.enabled);
  const chosen = server === undefined ? servers : servers.filter(([name]) => name === server);
  if (chosen.length === 0 && server !== undefined) return undefined;
  const view = sources.catalog.view;
  const withheld = [...(view.withheldTools ?? new Map()).entries()];
  return chosen.map(([name, config]) => ({
    name,
    isolation: config.isolation,
    tools: view.tools.filter((tool) => tool.server === name).map(({ name: upstreamName, item }) => namedItem(item, upstreamName)),
    prompts: view.prompts.filter((prompt) => prompt.server === name).map(({ name: upstreamName, item }) => namedItem(item, upstreamName)),
    resources: view.resources
      .filter((resource) => resource.server === name)
      .map(({ uri, item }) => ({ uri: String(item.uri), upstreamUri: uri, ...(typeof item.name === 'string' && { name: item.name }) })),
    resourceTemplates: view.resourceTemplates
      .filter((template) => template.server === name)
      .map(({ uriTemplate, item }) => ({
        uriTemplate: String(item.uriTemplate),
        upstreamUriTemplate: uriTemplate,
        ...(typeof item.name === 'string' && { name: item.name }),
      })),
    withheld: withheld.filter(([, tool]) => tool.server === name).map(([exposed, tool]) => ({ name: exposed, upstreamName: tool.name, reason: tool.reason })),
  }));
}

function namedItem(item: Record<string, unknown>, upstreamName: string): CatalogItem {
  return {
    name: String(item.name),
    upstreamName,
    ...(typeof item.title === 'string' && { title: item.title }),
    ...(typeof item.description === 'string' && { description: item.description }),
  };
}

/** The body of POST /api/catalog/preview. */
export const previewRequest = z
  .object({
    // null or absent: the caller without a token (auth off), as policy sees it.
    principal: z
      .object({
        sub: z.string().min(1).max(256),
        // A list, or the token's space-separated `scope` string.
        scopes: z.union([z.array(z.string()), z.string()]).default([]),
        claims: z.record(z.string(), z.unknown()).default({}),
      })
      .strict()
      .nullish(),
    endpoint: z.string().min(1).optional(),
  })
  .strict();

export type PreviewRequest = z.output<typeof previewRequest>;

export interface CatalogPreview {
  readonly principal: { readonly sub: string; readonly scopes: readonly string[] } | null;
  /** The endpoint whose selection applies: "default" is server.path, which selects everything. */
  readonly endpoint: string;
  /** Whether a policy is configured (without one, every principal sees everything). */
  readonly policy: boolean;
  readonly servers: readonly {
    readonly name: string;
    readonly tools: readonly string[];
    readonly prompts: readonly string[];
    readonly resources: readonly string[];
    readonly resourceTemplates: readonly string[];
  }[];
  /** What the catalogue has that this principal is not shown there. */
  readonly hidden: { readonly tools: number; readonly prompts: number; readonly resources: number; readonly resourceTemplates: number };
}

export class UnknownEndpointError extends Error {}

/** What the principal would be listed at the endpoint, from the shared catalogue as it is now. */
export function previewCatalog(sources: OperatorSources, request: PreviewRequest): CatalogPreview {
  const endpoint = request.endpoint === undefined || request.endpoint === 'default' ? undefined : request.endpoint;
  let full = sources.catalog.view;
  if (endpoint !== undefined) {
    const selection = sources.endpointSelections.get(endpoint);
    if (!selection) throw new UnknownEndpointError(`no endpoint named "${endpoint}" is configured`);
    full = filterCatalogView(full, selection);
  }
  const principal: Principal | undefined = request.principal
    ? {
        sub: request.principal.sub,
        scopes: typeof request.principal.scopes === 'string' ? request.principal.scopes.split(/\s+/).filter(Boolean) : request.principal.scopes,
        claims: { ...request.principal.claims, sub: request.principal.sub },
      }
    : undefined;
  const access = sources.access?.accessFor(principal);
  const shown: CatalogView = access ? filterCatalogView(full, (server, name) => access.allows(server, name)) : full;
  const base = sources.catalog.view;
  const servers = [...new Set([...shown.tools, ...shown.prompts, ...shown.resources, ...shown.resourceTemplates].map((item) => item.server))];
  const order = Object.keys(sources.config().mcpServers);
  servers.sort((a, b) => order.indexOf(a) - order.indexOf(b));
  return {
    principal: principal ? { sub: principal.sub, scopes: principal.scopes } : null,
    endpoint: endpoint ?? 'default',
    policy: sources.access !== undefined,
    servers: servers.map((name) => ({
      name,
      tools: shown.tools.filter((tool) => tool.server === name).map((tool) => String(tool.item.name)),
      prompts: shown.prompts.filter((prompt) => prompt.server === name).map((prompt) => String(prompt.item.name)),
      resources: shown.resources.filter((resource) => resource.server === name).map((resource) => String(resource.item.uri)),
      resourceTemplates: shown.resourceTemplates.filter((template) => template.server === name).map((template) => String(template.item.uriTemplate)),
    })),
    hidden: {
      tools: base.tools.length - shown.tools.length,
      prompts: base.prompts.length - shown.prompts.length,
      resources: base.resources.length - shown.resources.length,
      resourceTemplates: base.resourceTemplates.length - shown.resourceTemplates.length,
    },
  };
}
