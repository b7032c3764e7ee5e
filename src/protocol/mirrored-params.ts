// SEP-2243: a tool's input schema may mark parameters with `x-mcp-header`, and a 2026 client
// mirrors their values into `Mcp-Param-{Name}` headers so that intermediaries can route on them.
// The gateway is both ends of that: it checks what its clients mirrored (http/modern-headers.ts)
// and mirrors what it sends to 2026 HTTP upstreams (upstream/modern-requests.ts). Pure functions.
type JsonObject = Record<string, unknown>;

const SENTINEL = /^=\?base64\?(.*)\?=$/s;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** What may stand in a header value as it is (RFC 9110 visible ASCII and space), not at either end. */
const PLAIN = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** One tool parameter that its schema asks clients to mirror as `Mcp-Param-{header}`. */
export interface MirroredParam {
  readonly path: readonly string[];
  readonly header: string;
}

/** Per tool schema object: walked once, then reused while the catalogue keeps the same object. */
const mirroredParamsOf = new WeakMap<object, readonly MirroredParam[]>();

export function mirroredParams(inputSchema: JsonObject): readonly MirroredParam[] {
  let params = mirroredParamsOf.get(inputSchema);
  if (!params) {
    params = collectMirrored(inputSchema, []);
    mirroredParamsOf.set(inputSchema, params);
  }
  return params;
}

function collectMirrored(schema: JsonObject, path: readonly string[]): MirroredParam[] {
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return [];
  const found: MirroredParam[] = [];
  for (const [key, property] of Object.entries(properties as Record<string, unknown>)) {
    if (typeof property !== 'object' || property === null || Array.isArray(property)) continue;
    const annotated = (property as JsonObject)['x-mcp-header'];
    if (typeof annotated === 'string' && annotated !== '') found.push({ path: [...path, key], header: annotated });
    found.push(...collectMirrored(property as JsonObject, [...path, key]));
  }
  return found;
}

/**
 * A header value, Base64-decoded when it uses the sentinel form `=?base64?...?=`; undefined when
 * what is inside the sentinel is not Base64 of UTF-8. Anything else is the value itself.
 */
export function decodeHeaderValue(value: string): string | undefined {
  const match = SENTINEL.exec(value);
  if (!match) return value;
  const encoded = match[1]!;
  if (!BASE64.test(encoded) || encoded.length % 4 !== 0) return undefined;
  try {
    return utf8.decode(Buffer.from(encoded, 'base64'));
  } catch {
    return undefined;
  }
}

/** The encoding a client must use: as it is when plain ASCII, else the Base64 sentinel form. */
export function encodeHeaderValue(value: string): string {
  if (PLAIN.test(value) && !SENTINEL.test(value)) return value;
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

export function valueAtPath(args: unknown, path: readonly string[]): unknown {
  let value: unknown = args;
  for (const key of path) value = typeof value === 'object' && value !== null ? (value as JsonObject)[key] : undefined;
  return value;
}

/** The `Mcp-Param-*` headers a tools/call with these arguments carries (strings, integers, booleans). */
export function mirroredHeaders(inputSchema: JsonObject, args: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { path, header } of mirroredParams(inputSchema)) {
    const value = valueAtPath(args, path);
    if (typeof value === 'string') headers[`Mcp-Param-${header}`] = encodeHeaderValue(value);
    else if (typeof value === 'number' || typeof value === 'boolean') headers[`Mcp-Param-${header}`] = String(value);
  }
  return headers;
}
