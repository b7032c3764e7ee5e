// Reading one JSON-RPC body, for every route that takes messages: within server.maxBodyBytes,
// strict UTF-8, nested no deeper than a JSON parser can safely follow, then parsed once.
import type { Context } from 'hono';
import type { AppEnv } from './app-env.js';
import { readBodyWithin } from './body.js';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from './json-depth.js';

export type ParsedBody = { ok: true; value: unknown } | { ok: false; reason: string; tooLarge?: true };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** What nearly every client sends: judged with one comparison, since this runs for every POST. */
const PLAIN_JSON = 'application/json';

export function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === PLAIN_JSON) return true;
  return contentType?.split(';')[0]?.trim().toLowerCase() === PLAIN_JSON;
}

export async function readJson(c: Context<AppEnv>, maxBytes: number): Promise<ParsedBody> {
  const body = await readBodyWithin(c, maxBytes);
  if (!body.ok) return { ok: false, tooLarge: true, reason: 'the body is too large' };
  return parseJsonBody(body.bytes);
}

/** One body, already read within the limit, as JSON: for Hono and the fast path. */
export function parseJsonBody(bytes: Uint8Array): ParsedBody {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, reason: 'the body is not valid UTF-8' };
  }
  if (jsonDepthExceeds(text)) return { ok: false, reason: `JSON nested deeper than ${MAX_JSON_DEPTH} levels` };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: error instanceof SyntaxError ? error.message : 'the body is not JSON' };
  }
}
