// The gateway's own list cursors: opaque to clients, checked on the way back in. An offset into the
// merged, deterministically ordered list is enough: when the list changes between pages the client
// has been sent list_changed and will fetch it again.
import { rpcErrors } from '../errors.js';

/**
 * The page size without `lists.pageSize`: every list in one page. The spec lets a server choose
 * its page size, and clients that read only the first page (mcp-use, MCPJam, LangChain's resource
 * loader, the Inspector CLI) silently miss the rest of an aggregated list, which is where lists pass
 * a hundred items.
 */
export const ONE_PAGE = Number.POSITIVE_INFINITY;

export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor?: string;
}

/** Where the page a cursor names starts (0 without a cursor); a bad cursor is the client's error. */
export function pageOffset(length: number, kind: string, cursor: unknown): number {
  return cursor === undefined ? 0 : decodeCursor(cursor, kind, length);
}

/** The page of `items` that starts at `offset`, and the cursor of the next one unless it is the last. */
export function pageAt<T>(items: readonly T[], kind: string, offset: number, pageSize: number): Page<T> {
  const end = offset + pageSize;
  const page = items.slice(offset, end);
  return end < items.length ? { items: page, nextCursor: encodeCursor(kind, end) } : { items: page };
}

function encodeCursor(kind: string, offset: number): string {
  return Buffer.from(JSON.stringify({ k: kind, o: offset })).toString('base64url');
}

function decodeCursor(cursor: unknown, kind: string, length: number): number {
  if (typeof cursor !== 'string' || cursor.length > 200) throw rpcErrors.invalidCursor();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw rpcErrors.invalidCursor();
  }
  const { k, o } = (decoded ?? {}) as { k?: unknown; o?: unknown };
  if (k !== kind || typeof o !== 'number' || !Number.isInteger(o) || o < 0) throw rpcErrors.invalidCursor();
  // A cursor past the end (the list shrank) gives an empty last page rather than an error.
  return Math.min(o, length);
}
