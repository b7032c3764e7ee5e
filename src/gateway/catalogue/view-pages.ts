// The pages of a catalogue view's lists, made once per view and kept while the view lives: every
// caller of a view gets the same page objects, whose JSON is joined once from their items' texts,
// each made once, and kept as bytes (protocol/json-text.ts). A tools/list then costs a lookup, not a
// serialization of up to a hundred tools, and what it costs no longer grows with the catalogue
// (see docs/decisions/0012-json-text-made-once.md).
import { memoizedJson, presetJson } from '../../protocol/json-text.js';
import type { JsonObject } from '../../protocol/json.js';
import { pageAt, pageOffset } from './pagination.js';

/** A list's result key: tools, prompts, resources, resourceTemplates. */
export type ListKind = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';

interface CachedPage {
  readonly pageSize: number;
  readonly result: JsonObject;
}

export class ViewPages {
  /**
   * By the view's list (an array that belongs to one view and goes with it), then by offset. Only
   * the offsets the gateway's own cursors name (multiples of the page size) are kept, so a client
   * that makes up cursors cannot fill this with pages of its choosing.
   */
  readonly #pages = new WeakMap<readonly { item: JsonObject }[], Map<number, CachedPage>>();

  page(kind: ListKind, entries: readonly { item: JsonObject }[], cursor: unknown, pageSize: number): JsonObject {
    const offset = pageOffset(entries.length, kind, cursor);
    const keep = offset % pageSize === 0;
    let byOffset = this.#pages.get(entries);
    const cached = byOffset?.get(offset);
    if (cached && cached.pageSize === pageSize) return cached.result;
    const result = resultOf(kind, entries, offset, pageSize);
    if (keep) {
      if (!byOffset) {
        byOffset = new Map();
        this.#pages.set(entries, byOffset);
      }
      byOffset.set(offset, { pageSize, result });
    }
    return result;
  }
}

function resultOf(kind: ListKind, entries: readonly { item: JsonObject }[], offset: number, pageSize: number): JsonObject {
  const page = pageAt(entries, kind, offset, pageSize);
  const items = Object.freeze(page.items.map((entry) => entry.item));
  const { nextCursor } = page;
  const result: JsonObject = nextCursor === undefined ? { [kind]: items } : { [kind]: items, nextCursor };
  const tail = nextCursor === undefined ? '}' : `,"nextCursor":${JSON.stringify(nextCursor)}}`;
  // Joined once, on first use, and kept with the page as its UTF-8 bytes (presetJson): joining a
  // full page on every call was a visible share of a tools/list's CPU and a string of the page's
  // size per call. The bytes stay in memory while the view keeps the page (tens of KB for 100
  // tools; docs/decisions/0012-json-text-made-once.md).
  return presetJson(result, () => `{"${kind}":[${items.map(memoizedJson).join(',')}]${tail}`);
}
