// Tools by the upstream's own name. An MCP App calls its server's tools by the names that server
// gives them (`poll-system-stats`), not by the gateway's (`monitor__poll-system-stats`): the host
// relays the call as it is. Such a name is looked up only after the exposed name was not found, so
// a known exposed name costs nothing here; the index is built on the first such call of a view
// and goes with the view.
import type { ExposedNamedItem } from './catalog-view.js';

/** One index per view's tool list: a new view (a catalogue change, another policy) is a new list. */
const indexes = new WeakMap<readonly ExposedNamedItem[], ReadonlyMap<string, readonly ExposedNamedItem[]>>();

/** The tools of `tools` whose upstream's own name is `name`, in the view's order. */
export function toolsByUpstreamName(tools: readonly ExposedNamedItem[], name: string): readonly ExposedNamedItem[] {
  let index = indexes.get(tools);
  if (index === undefined) {
    const built = new Map<string, ExposedNamedItem[]>();
    for (const tool of tools) {
      const same = built.get(tool.name);
      if (same === undefined) built.set(tool.name, [tool]);
      else same.push(tool);
    }
    index = built;
    indexes.set(tools, index);
  }
  return index.get(name) ?? [];
}
