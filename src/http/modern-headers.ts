// The 2026-07-28 Streamable HTTP transport mirrors parts of the body into headers so that
// intermediaries can route without parsing JSON: MCP-Protocol-Version, Mcp-Method, and Mcp-Name for
// the methods that name something. A body and headers that disagree are refused (-32020), since
// something in front of the gateway may have decided on the headers.
import type { JsonObject } from '../gateway/json.js';

// A Map, not an object literal: the method comes from the client, and "constructor" or
// "__proto__" would find Object.prototype's members in a literal.
const NAMED_BY: ReadonlyMap<string, 'name' | 'uri'> = new Map([
  ['tools/call', 'name'],
  ['prompts/get', 'name'],
  ['resources/read', 'uri'],
]);
const BASE64_SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface MirroredHeaders {
  readonly protocolVersion: string | undefined;
  readonly method: string | undefined;
  readonly name: string | undefined;
}

/** Why the headers do not match the body, or undefined when they do. */
export function headerMismatch(headers: MirroredHeaders, body: { method: string; params?: JsonObject }, version: unknown): string | undefined {
  if (headers.protocolVersion === undefined) return 'the MCP-Protocol-Version header is required';
  if (typeof version === 'string' && headers.protocolVersion !== version) {
    return `MCP-Protocol-Version header "${clip(headers.protocolVersion)}" does not match the body's protocol version "${clip(version)}"`;
  }
  if (headers.method === undefined) return 'the Mcp-Method header is required';
  if (headers.method !== body.method) return `Mcp-Method header "${clip(headers.method)}" does not match the body's method "${clip(body.method)}"`;
  const field = NAMED_BY.get(body.method);
  if (field === undefined) return undefined;
  if (headers.name === undefined) return `the Mcp-Name header is required for ${body.method}`;
  const name = decodeHeaderValue(headers.name);
  if (name === undefined) return 'the Mcp-Name header is not a valid =?base64?...?= value';
  const bodyValue = body.params?.[field];
  if (typeof bodyValue === 'string' && name !== bodyValue) {
    return `Mcp-Name header "${clip(name)}" does not match the body's params.${field} "${clip(bodyValue)}"`;
  }
  return undefined;
}

/** A header value, Base64-decoded when it uses the sentinel form; undefined when that form is broken. */
export function decodeHeaderValue(value: string): string | undefined {
  if (!value.startsWith('=?base64?')) return value;
  const match = BASE64_SENTINEL.exec(value);
  if (!match || match[1]!.length % 4 !== 0) return undefined;
  try {
    return utf8.decode(Buffer.from(match[1]!, 'base64'));
  } catch {
    return undefined;
  }
}

/** Values from the client are quoted back in errors, never at length. */
function clip(value: string): string {
  return value.length > 80 ? `${value.slice(0, 80)}...` : value;
}
