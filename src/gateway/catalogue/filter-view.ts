// A catalogue view cut down to what one principal may see. Lists lose the denied items, and so do
// the name lookups that routing uses, so a call of a denied tool or prompt fails exactly as a call
// of an unknown one. URIs can be read without being listed (through a template, or by the server
// tag in the URI), so the view also carries `allows`, which routing asks before handing out an
// upstream URI. Pure: the same view and decisions give the same result.
import type { CatalogView } from './catalog-view.js';

/** Whether an item (server config name, upstream's own name, URI or URI template) may be reached. */
export type ItemFilter = (server: string, name: string) => boolean;

export function filterCatalogView(view: CatalogView, allows: ItemFilter): CatalogView {
  const tools = view.tools.filter((tool) => allows(tool.server, tool.name));
  const prompts = view.prompts.filter((prompt) => allows(prompt.server, prompt.name));
  const outer = view.allows;
  return {
    ...view,
    tools,
    prompts,
    resources: view.resources.filter((resource) => allows(resource.server, resource.uri)),
    resourceTemplates: view.resourceTemplates.filter((template) => allows(template.server, template.uriTemplate)),
    toolsByName: new Map(tools.map((tool) => [String(tool.item.name), tool])),
    promptsByName: new Map(prompts.map((prompt) => [String(prompt.item.name), prompt])),
    // unprefixedResources stays whole: it says where a URI goes, and `allows` then refuses it, so a
    // denied URI is never routed to another server that happens to list the same one.
    allows: outer ? (server, name) => allows(server, name) && outer(server, name) : allows,
  };
}
