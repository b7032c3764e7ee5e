// The merged catalogue: every ready upstream's tools, prompts, resources and templates under their
// exposed names, in a deterministic order (config order, then each upstream's own order), with the
// lookups that route a call back to its upstream. Built by a pure function from the lists.
import type { JsonObject } from '../../protocol/json.js';
import { assignExposedNames, exposeUri, type Naming } from './namespace.js';
import type { ToolGate, WithheldTool } from './tool-gate.js';
import { exposeAppUris } from './rewrite-uris.js';
import { applyToolOverride, NO_OVERRIDES, type ToolOverridesByServer } from './tool-overrides.js';
import { templateMatcher } from './uri-template.js';

export interface ServerLists {
  readonly server: string;
  /** The tool/prompt name prefix; "" exposes names (and URIs) unchanged. */
  readonly prefix: string;
  readonly tools: readonly JsonObject[];
  readonly prompts: readonly JsonObject[];
  readonly resources: readonly JsonObject[];
  readonly resourceTemplates: readonly JsonObject[];
}

export interface ExposedNamedItem {
  readonly server: string;
  /** The upstream's own name. */
  readonly name: string;
  /** The item as the client sees it. */
  readonly item: JsonObject;
}

export interface ExposedResource {
  readonly server: string;
  readonly uri: string;
  readonly item: JsonObject;
}

export interface ExposedTemplate {
  readonly server: string;
  readonly uriTemplate: string;
  readonly item: JsonObject;
  /** For unprefixed servers only: which upstream URIs this template covers. */
  readonly matcher: RegExp | undefined;
}

export interface CatalogView {
  readonly tools: readonly ExposedNamedItem[];
  readonly prompts: readonly ExposedNamedItem[];
  readonly resources: readonly ExposedResource[];
  readonly resourceTemplates: readonly ExposedTemplate[];
  readonly toolsByName: ReadonlyMap<string, ExposedNamedItem>;
  readonly promptsByName: ReadonlyMap<string, ExposedNamedItem>;
  /** Unprefixed servers' URIs, first server in config order wins a clash. */
  readonly unprefixedResources: ReadonlyMap<string, string>;
  /**
   * Tools a ToolGate withholds, by the name they would be listed under: a call of one fails as a
   * call of an unknown tool, and the audit line says why. Absent on views filtered by policy.
   */
  readonly withheldTools?: ReadonlyMap<string, WithheldTool>;
  /**
   * Set on a view filtered by policy (filter-view.ts): whether an item may be reached, asked by
   * routing for URIs, which can be read without being listed.
   */
  readonly allows?: (server: string, name: string) => boolean;
}

/**
 * `toolOverrides` (by server) rename, re-describe, annotate or hide tools (tool-overrides.ts);
 * `gate` withholds tools (tool-gate.ts).
 */
export function buildCatalogView(
  lists: readonly ServerLists[],
  naming: Naming,
  toolOverrides: ToolOverridesByServer = NO_OVERRIDES,
  gate?: ToolGate,
): CatalogView {
  const withheldTools = new Map<string, WithheldTool>();
  const tools = exposeNamed(lists, 'tools', naming, toolOverrides, gate, withheldTools);
  const prompts = exposeNamed(lists, 'prompts', naming, NO_OVERRIDES);
  const resources: ExposedResource[] = [];
  const resourceTemplates: ExposedTemplate[] = [];
  const unprefixedResources = new Map<string, string>();
  const seenUris = new Set<string>();

  for (const list of lists) {
    const tagged = list.prefix !== '';
    for (const resource of list.resources) {
      const uri = String(resource.uri);
      const exposed = tagged ? exposeUri(list.server, uri) : uri;
      // Two unprefixed servers listing the same URI cannot both be reached by it: the first wins.
      if (seenUris.has(exposed)) continue;
      seenUris.add(exposed);
      if (!tagged) unprefixedResources.set(uri, list.server);
      resources.push({ server: list.server, uri, item: { ...resource, uri: exposed } });
    }
    for (const template of list.resourceTemplates) {
      const uriTemplate = String(template.uriTemplate);
      resourceTemplates.push({
        server: list.server,
        uriTemplate,
        item: { ...template, uriTemplate: tagged ? exposeUri(list.server, uriTemplate) : uriTemplate },
        matcher: tagged ? undefined : templateMatcher(uriTemplate),
      });
    }
  }

  return {
    tools,
    prompts,
    resources,
    resourceTemplates,
    toolsByName: new Map(tools.map((tool) => [String(tool.item.name), tool])),
    promptsByName: new Map(prompts.map((prompt) => [String(prompt.item.name), prompt])),
    unprefixedResources,
    ...(withheldTools.size > 0 && { withheldTools }),
  };
}

export function serverItemKey(server: string, name: string): string {
  return `${server}\u0000${name}`;
}

function exposeNamed(
  lists: readonly ServerLists[],
  kind: 'tools' | 'prompts',
  naming: Naming,
  overrides: ToolOverridesByServer,
  gate?: ToolGate,
  withheldTools?: Map<string, WithheldTool>,
): ExposedNamedItem[] {
  const entries = lists.flatMap((list) => {
    const ofServer = overrides.get(list.server);
    return list[kind].flatMap((item) => {
      const name = String(item.name);
      // Asked of the upstream's own entry: an operator's override is no change of the upstream's.
      const withheld = gate?.withheld(list.server, item);
      const override = ofServer?.get(name);
      if (override === undefined) return [{ server: list.server, prefix: list.prefix, name, item, withheld }];
      // A hidden tool is not in the view at all, so a call of it fails as a call of an unknown one.
      if (override.hidden === true) return [];
      return [{ server: list.server, prefix: list.prefix, name, item: applyToolOverride(item, override), exposedAs: override.name, withheld }];
    });
  });
  // A withheld tool keeps its place in the naming, so no other tool's name moves when it is
  // withheld or comes back; only the listing leaves it out.
  const names = assignExposedNames(entries, naming, kind === 'tools' ? 'tool' : 'prompt');
  return entries.flatMap((entry, index) => {
    const exposed = names[index]!;
    // A prefixed server's tool names its app's UI by the URI the client can read (MCP Apps).
    const item = kind === 'tools' && entry.prefix !== '' ? exposeAppUris(entry.item, entry.server) : entry.item;
    if (entry.withheld === undefined) return [{ server: entry.server, name: entry.name, item: { ...item, name: exposed } }];
    withheldTools?.set(exposed, { server: entry.server, name: entry.name, reason: entry.withheld });
    return [];
  });
}
