// The 2026-07-28 Streamable HTTP transport mirrors parts of the body into headers so that
// intermediaries can route without parsing JSON: MCP-Protocol-Version, Mcp-Method, and Mcp-Name for
// the methods that name something. A body and headers that disagree are refused (-32020), since
// something in front of the gateway may have decided on the headers.
import type { JsonObject } from '../protocol/json.js';
import { mcpNameParam } from '../protocol/mcp-name.js';
import { decodeHeaderValue, mirroredParams, valueAtPath } from '../protocol/mirrored-params.js';

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
  const field = mcpNameParam(body.method);
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

/** Values from the client are quoted back in errors, never at length. */
function clip(value: string): string {
  return value.length > 80 ? `${value.slice(0, 80)}...` : value;
}

/**
 * Why the `Mcp-Param-*` headers of a tools/call do not match its arguments (the tool's schema says
 * which parameters are mirrored), or undefined when they do.
 */
export function paramHeaderMismatch(inputSchema: JsonObject, args: unknown, header: (name: string) => string | undefined): string | undefined {
  for (const { path, header: suffix } of mirroredParams(inputSchema)) {
    const value = valueAtPath(args, path);
    if (value === undefined || value === null) continue;
    const raw = header(`mcp-param-${suffix.toLowerCase()}`);
    if (raw === undefined) return `the Mcp-Param-${suffix} header is required when arguments.${path.join('.')} is given`;
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return `the Mcp-Param-${suffix} header is not a valid =?base64?...?= value`;
    const matches =
      typeof value === 'number' ? decoded.trim() !== '' && Number(decoded) === value : typeof value === 'boolean' ? decoded === String(value) : decoded === value;
    if (!matches) return `Mcp-Param-${suffix} header "${clip(decoded)}" does not match arguments.${path.join('.')}`;
  }
  return undefined;
}
