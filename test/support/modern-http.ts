// 2026-07-28 requests by hand: the per-request `_meta` envelope, the headers that mirror the body
// (MCP-Protocol-Version, Mcp-Method, Mcp-Name), and a POST that can leave out or falsify any of
// them, which an SDK client never would. A well-behaved 2026 client is modern-client.ts.
import { MCP_ACCEPT, type RawResponse } from './raw-http.js';

export const MODERN_VERSION = '2026-07-28';

export const META_KEY = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
} as const;

/** A complete, valid envelope; `extra` adds or overrides keys (undefined removes one). */
export function envelope(capabilities: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    [META_KEY.protocolVersion]: MODERN_VERSION,
    [META_KEY.clientCapabilities]: capabilities,
    [META_KEY.clientInfo]: { name: 'switchboard-hostile-tests', version: '1.0.0' },
    ...extra,
  };
  for (const key of Object.keys(meta)) if (meta[key] === undefined) delete meta[key];
  return meta;
}

export interface ModernMessage {
  readonly jsonrpc: '2.0';
  readonly id: number | string;
  readonly method: string;
  readonly params: Record<string, unknown>;
}

let nextId = 1;

/** A 2026 request: `params` plus an envelope (a valid one unless `meta` is given). */
export function modernRequest(method: string, params: Record<string, unknown> = {}, meta: unknown = envelope()): ModernMessage {
  nextId += 1;
  return { jsonrpc: '2.0', id: nextId, method, params: { ...params, _meta: meta } };
}

const NAMED_BY: ReadonlyMap<string, 'name' | 'uri' | 'taskId'> = new Map([
  ['tools/call', 'name'],
  ['prompts/get', 'name'],
  ['resources/read', 'uri'],
  ['tasks/get', 'taskId'],
  ['tasks/update', 'taskId'],
  ['tasks/cancel', 'taskId'],
]);

/** The =?base64?...?= sentinel form of a header value (UTF-8, standard alphabet, padded). */
export function base64Sentinel(value: string): string {
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** The headers a conforming client mirrors from `message` (what the gateway checks against the body). */
export function mirroredHeaders(message: { method: string; params?: Record<string, unknown> }): Record<string, string> {
  const meta = message.params?._meta;
  const version = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)[META_KEY.protocolVersion] : undefined;
  const headers: Record<string, string> = {
    'mcp-protocol-version': typeof version === 'string' ? version : MODERN_VERSION,
    'mcp-method': message.method,
  };
  const field = NAMED_BY.get(message.method);
  const name = field === undefined ? undefined : message.params?.[field];
  if (typeof name === 'string') headers['mcp-name'] = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(name) && !name.startsWith('=?base64?') ? name : base64Sentinel(name);
  return headers;
}

export interface ModernPostOptions {
  /** Replaces mirrored headers; an undefined value leaves that header out. */
  readonly headers?: Record<string, string | undefined>;
  readonly token?: string;
  /** Deadline for the whole exchange; a gateway that hangs fails the test rather than stalling it. */
  readonly timeoutMs?: number;
}

/** POSTs a 2026 message with the headers it implies, altered as `options.headers` says. */
export async function modernPost(url: string, message: object | string, options: ModernPostOptions = {}): Promise<RawResponse & { text: string }> {
  const mirrored = typeof message === 'string' ? {} : mirroredHeaders(message as ModernMessage);
  const headers: Record<string, string> = {
    accept: MCP_ACCEPT,
    'content-type': 'application/json',
    ...mirrored,
    ...(options.token !== undefined && { authorization: `Bearer ${options.token}` }),
  };
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === undefined) delete headers[name];
    else headers[name] = value;
  }
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: typeof message === 'string' ? message : JSON.stringify(message),
    signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    body = text;
  }
  return { status: response.status, headers: response.headers, body, text };
}
