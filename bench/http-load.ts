// A light load generator over HTTP: plain POSTs through an undici Pool with keep-alive, one
// connection per caller. No SDK, no schema validation, no GET stream: on a 2-core machine the SDK
// client costs about as much CPU per call as the gateway, and the two compete for the same cores,
// so only a load this cheap shows what the front itself costs. Each call still does what a client
// must: a unique JSON-RPC id, the era's headers, a parse of the answer (JSON or SSE) and a check.
import { Pool } from 'undici';

import { readAnswer } from './json-rpc-answer.js';
import { closeAll, openInBatches, type BenchClient, type ClientGroup } from './load.js';
import { checkResult, MODERN_VERSION, requestOf, type Operation } from './operations.js';
import type { Target } from './targets.js';

export const SESSION_VERSION = '2025-11-25';
const CLIENT_INFO = { name: 'switchboard-bench-http', version: '1.0.0' };
// A call that hangs fails after this, rather than holding the run past its phase's time bound.
const CALL_TIMEOUT_MS = 10_000;
const BASE_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
/** The envelope every 2026 request carries; the same object for every call, as a client would keep it. */
export const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': MODERN_VERSION, 'io.modelcontextprotocol/clientCapabilities': {} };

// Unique across the process, so no two requests of any target or caller share an id.
let lastId = 0;

/** `count` callers of the MCP endpoint at `url`, each making `operation` calls; for a 2025 target each has its own session. */
export async function openHttpCallers(url: string, target: Target, count: number, operation: Operation): Promise<ClientGroup> {
  const { origin, pathname } = new URL(url);
  const pool = new Pool(origin, { connections: count, headersTimeout: CALL_TIMEOUT_MS, bodyTimeout: CALL_TIMEOUT_MS });
  const endpoint = endpointOn(pool, pathname);
  try {
    const open = target.era === '2026' ? () => Promise.resolve(stateless(endpoint, target, operation)) : () => session(endpoint, target, operation);
    const clients = await openInBatches(count, open);
    return {
      clients,
      close: async () => {
        await closeAll(clients);
        await pool.close();
      },
    };
  } catch (error) {
    await pool.destroy();
    throw error;
  }
}

export interface Posted {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** The MCP endpoint over a pool's keep-alive connections. */
export interface Endpoint {
  post(message: object, headers: Record<string, string>): Promise<Posted>;
  delete(headers: Record<string, string>): Promise<void>;
}

/**
 * A request's whole headers: the base ones and the caller's, merged once per caller's object, which
 * a caller keeps for all its calls. A spread per call cost the load ~0.9 us per 2025 call and ~1.4
 * per 2026 call (a million spreads in a loop, Node 20), more than the gateway's whole session lookup.
 */
const mergedHeaders = new WeakMap<Record<string, string>, Record<string, string>>();

function withBaseHeaders(headers: Record<string, string>): Record<string, string> {
  let merged = mergedHeaders.get(headers);
  if (merged === undefined) {
    merged = { ...BASE_HEADERS, ...headers };
    mergedHeaders.set(headers, merged);
  }
  return merged;
}

export function endpointOn(pool: Pool, path: string): Endpoint {
  return {
    async post(message, headers) {
      const response = await pool.request({ path, method: 'POST', headers: withBaseHeaders(headers), body: JSON.stringify(message) });
      // The body is always read to its end: an unread body keeps the connection from being reused.
      return { status: response.statusCode, headers: response.headers, body: await response.body.text() };
    },
    async delete(headers) {
      const { body } = await pool.request({ path, method: 'DELETE', headers });
      await body.dump();
    },
  };
}

/** The headers that mirror a 2026 request's body: its version, its method and, where it names something, the name. */
export function modernHeaders(method: string, name?: string): Record<string, string> {
  return name === undefined ? { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': method } : { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': method, 'mcp-name': name };
}

/** A 2026 caller: every call carries the envelope in `_meta` and the headers that mirror it; nothing to open or close. */
function stateless(endpoint: Endpoint, target: Target, operation: Operation): BenchClient {
  const { method, params, name } = requestOf(operation, target.tool);
  const headers = modernHeaders(method, name);
  const body = { ...params, _meta: MODERN_META };
  return {
    async call() {
      const result = await call(endpoint, operation, method, body, headers);
      // Proof that the 2026 path served it: a 2025 result has no resultType.
      if ((result as { resultType?: unknown }).resultType !== 'complete') throw new Error(`not a 2026 result: ${JSON.stringify(result).slice(0, 200)}`);
    },
    close: () => Promise.resolve(),
  };
}

/** A 2025 caller: initialize, initialized, then calls on the session; DELETE at the end. */
async function session(endpoint: Endpoint, target: Target, operation: Operation): Promise<BenchClient> {
  const headers = await openSession(endpoint);
  const { method, params } = requestOf(operation, target.tool);
  return {
    async call() {
      await call(endpoint, operation, method, params, headers);
    },
    close: () => endpoint.delete(headers),
  };
}

/** initialize and notifications/initialized; resolves with the headers every later request of the session carries. */
export async function openSession(endpoint: Endpoint, initialized = true): Promise<Record<string, string>> {
  const id = (lastId += 1);
  const init = await endpoint.post({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: SESSION_VERSION, capabilities: {}, clientInfo: CLIENT_INFO } }, {});
  const sessionId = init.headers['mcp-session-id'];
  if (init.status !== 200 || typeof sessionId !== 'string') throw new Error(`initialize failed: ${init.status} ${init.body.slice(0, 200)}`);
  const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': SESSION_VERSION };
  if (!initialized) return headers;
  const notified = await endpoint.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  if (notified.status !== 202) throw new Error(`notifications/initialized: ${notified.status} ${notified.body.slice(0, 200)}`);
  return headers;
}

/** One request; resolves with its result once it is checked to answer `operation`. */
export async function call(endpoint: Endpoint, operation: Operation, method: string, params: object, headers: Record<string, string>): Promise<unknown> {
  const result = await request(endpoint, method, params, headers);
  checkResult(operation, result);
  return result;
}

/** One request; resolves with its result, rejects on an HTTP or JSON-RPC error. */
export async function request(endpoint: Endpoint, method: string, params: object, headers: Record<string, string>): Promise<unknown> {
  const id = (lastId += 1);
  const { status, headers: responseHeaders, body } = await endpoint.post({ jsonrpc: '2.0', id, method, params }, headers);
  if (status !== 200) throw new Error(`HTTP ${status}: ${body.slice(0, 200)}`);
  const contentType = responseHeaders['content-type'];
  const answer = readAnswer(typeof contentType === 'string' ? contentType : undefined, body, id);
  if (answer.error !== undefined) throw new Error(`JSON-RPC error ${JSON.stringify(answer.error).slice(0, 200)}`);
  return answer.result;
}
