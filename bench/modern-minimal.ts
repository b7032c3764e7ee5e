// The least a 2026-07-28 server must do with a request, for the bench's floor and reference proxy
// (floor-server.ts, min-proxy.ts): read the envelope's version, check the headers that mirror the
// body (a server that skips this is not serving 2026), and answer with `resultType` and its
// `serverInfo`. Their 2026 rows then say what the revision itself costs on this machine, the load's
// larger requests and answers included, so the gateway's 2026 path is judged beside what any Node
// front of that revision pays. Not the gateway's code: a few lines each, no schema, no policy.
import type { IncomingHttpHeaders } from 'node:http';

const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
/** Methods whose Mcp-Name header mirrors params.name. */
const NAMED_BY_NAME = new Set(['tools/call', 'prompts/get']);

export interface ModernParams {
  readonly _meta?: Readonly<Record<string, unknown>>;
  readonly name?: unknown;
  readonly uri?: unknown;
  readonly [key: string]: unknown;
}

/** The revision a request's envelope names; undefined for a 2025 request. */
export function envelopeVersion(params: ModernParams | undefined): string | undefined {
  const version = params?._meta?.[PROTOCOL_VERSION];
  return typeof version === 'string' ? version : undefined;
}

/** Why the headers do not mirror the request (the spec's 400 with -32020), or undefined when they do. */
export function headerMismatch(headers: IncomingHttpHeaders, method: string | undefined, params: ModernParams | undefined, version: string): string | undefined {
  if (headers['mcp-protocol-version'] !== version) return 'MCP-Protocol-Version does not match the envelope';
  if (headers['mcp-method'] !== method) return 'Mcp-Method does not match the method';
  if (method === undefined) return undefined;
  const name = NAMED_BY_NAME.has(method) ? params?.name : method === 'resources/read' ? params?.uri : undefined;
  if (name !== undefined && headers['mcp-name'] !== name) return 'Mcp-Name does not match the request';
  return undefined;
}

/** The refusal of a request whose headers do not mirror it. */
export function mismatchAnswer(id: unknown, reason: string): object {
  return { jsonrpc: '2.0', id, error: { code: -32020, message: `Header mismatch: ${reason}` } };
}

/** params without the envelope: what a 2025 server is sent (the envelope describes the client to us, not to it). */
export function withoutEnvelope(params: ModernParams): Record<string, unknown> {
  const { _meta, ...rest } = params;
  return rest;
}

/** A final result as a 2026 client gets it. */
export function completeResult(result: Readonly<Record<string, unknown>>, serverInfo: object): Record<string, unknown> {
  const meta = result._meta;
  return { ...result, resultType: 'complete', _meta: { ...(typeof meta === 'object' && meta !== null ? meta : {}), [SERVER_INFO]: serverInfo } };
}
