// Fetches every page of one of an upstream's lists: the gateway merges whole lists and pages the
// merge with its own cursor, so an upstream's cursors never reach the client.
import { isJsonObject, type JsonObject } from '../../protocol/json.js';

/** Anything that can send a request to one upstream: its shared connection, or a session's own. */
export interface Requester {
  request(method: string, params: JsonObject | undefined): Promise<JsonObject>;
}

/** A server that keeps handing out cursors is cut off here rather than looping forever. */
const MAX_PAGES = 1_000;

export async function fetchAllPages(upstream: Requester, method: string, key: string): Promise<JsonObject[]> {
  const items: JsonObject[] = [];
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const result = await upstream.request(method, cursor === undefined ? undefined : { cursor });
    const pageItems = result[key];
    if (Array.isArray(pageItems)) items.push(...pageItems.filter(isJsonObject));
    const next = result.nextCursor;
    if (typeof next !== 'string' || next === '' || seenCursors.has(next)) return items;
    seenCursors.add(next);
    cursor = next;
  }
  return items;
}
