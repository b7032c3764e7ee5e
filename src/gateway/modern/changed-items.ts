// Which items a list change touched: added, removed or altered, as (server, upstream name or URI)
// pairs, the terms policy decides in. A listener is told of a change only when its policy lets it
// see one of them, exactly as a 2025 session is told only when its own filtered view changed.
import type { ListKind } from '../catalogue/catalog.js';
import type { CatalogView } from '../catalogue/catalog-view.js';

export function changedItems(kind: ListKind, before: CatalogView, after: CatalogView): [string, string][] {
  const old = itemsOf(kind, before);
  const now = itemsOf(kind, after);
  const changed: [string, string][] = [];
  for (const [key, entry] of now) if (old.get(key)?.json !== entry.json) changed.push(entry.id);
  for (const [key, entry] of old) if (!now.has(key)) changed.push(entry.id);
  return changed;
}

function itemsOf(kind: ListKind, view: CatalogView): Map<string, { id: [string, string]; json: string }> {
  const entries: { server: string; name: string; item: unknown }[] =
    kind === 'tools'
      ? [...view.tools]
      : kind === 'prompts'
        ? [...view.prompts]
        : [
            ...view.resources.map((entry) => ({ server: entry.server, name: entry.uri, item: entry.item })),
            ...view.resourceTemplates.map((entry) => ({ server: entry.server, name: entry.uriTemplate, item: entry.item })),
          ];
  const items = new Map<string, { id: [string, string]; json: string }>();
  for (const entry of entries) items.set(`${entry.server}\u0000${entry.name}`, { id: [entry.server, entry.name], json: JSON.stringify(entry.item) });
  return items;
}
