// Follows nextCursor to the end of a list, the way a client reads a whole list.
import type { TestClient } from './mcp-clients.js';

const MAX_PAGES = 500;

export async function listAll(client: TestClient, method: string, key: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const result: Record<string, unknown> = await client.request(method, cursor === undefined ? {} : { cursor }).catch((error: unknown) => {
      // A server without the capability has no such list: that is an empty list, not a failure.
      if ((error as { code?: unknown }).code === -32601) return {};
      throw error;
    });
    items.push(...((result[key] as Record<string, unknown>[] | undefined) ?? []));
    cursor = result.nextCursor as string | undefined;
    if (cursor === undefined) return items;
  }
  throw new Error(`${method} did not end after ${MAX_PAGES} pages`);
}
