// A light load generator: tools/call as plain HTTP POSTs through an undici Pool with keep-alive,
// one connection per caller. No SDK, no schema validation, no GET stream: on a 2-core machine the
// SDK client costs about as much CPU per call as the gateway, and the two compete for the same
// cores, so only a load this cheap shows what the gateway itself costs. Each call still does what a
// client must: a unique JSON-RPC id, the era's headers, and a parse and check of the answer.
import { Pool } from 'undici';

import { checkEcho, ECHO_ARGUMENTS, MODERN_VERSION } from './echo.js';
import { readAnswer } from './json-rpc-answer.js';
import { closeAll, openInBatches, type BenchClient, type LoadGenerator } from './load.js';
import type { Target } from './targets.js';

const SESSION_VERSION = '2025-11-25';
const CLIENT_INFO = { name: 'switchboard-bench-http', version: '1.0.0' };
// A call that hangs fails after this, rather than holding the run past its phase's time bound.
const CALL_TIMEOUT_MS = 10_000;
const BASE_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

// Unique across the process, so no two requests of any target or caller share an id.
let lastId = 0;

export const httpLoad: LoadGenerator = {
  name: 'http',
  async open(target, count) {
    const url = new URL(target.url);
    const pool = new Pool(url.origin, { connections: count, headersTimeout: CALL_TIMEOUT_MS, bodyTimeout: CALL_TIMEOUT_MS });
    const endpoint = endpointOn(pool, url.pathname);
    try {
      const clients = await openInBatches(count, () => (target.era === '2026' ? Promise.resolve(stateless(endpoint, target)) : session(endpoint, target)));
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
  },
};

interface Posted {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** The MCP endpoint over the pool's keep-alive connections. */
interface Endpoint {
  post(message: object, headers: Record<string, string>): Promise<Posted>;
  delete(headers: Record<string, string>): Promise<void>;
}

function endpointOn(pool: Pool, path: string): Endpoint {
  return {
    async post(message, headers) {
      const response = await pool.request({ path, method: 'POST', headers: { ...BASE_HEADERS, ...headers }, body: JSON.stringify(message) });
      // The body is always read to its end: an unread body keeps the connection from being reused.
      return { status: response.statusCode, headers: response.headers, body: await response.body.text() };
    },
    async delete(headers) {
      const { body } = await pool.request({ path, method: 'DELETE', headers });
      await body.dump();
    },
  };
}

/** A 2026 caller: every call carries the envelope in `_meta` and the headers that mirror it; nothing to open or close. */
function stateless(endpoint: Endpoint, target: Target): BenchClient {
  const headers = { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/call', 'mcp-name': target.tool };
  const meta = { 'io.modelcontextprotocol/protocolVersion': MODERN_VERSION, 'io.modelcontextprotocol/clientCapabilities': {} };
  return {
    async callEcho() {
      const result = await call(endpoint, { name: target.tool, arguments: ECHO_ARGUMENTS, _meta: meta }, headers);
      // Proof that the 2026 path served it: a 2025 result has no resultType.
      if ((result as { resultType?: unknown }).resultType !== 'complete') throw new Error(`not a 2026 result: ${JSON.stringify(result).slice(0, 200)}`);
    },
    close: () => Promise.resolve(),
  };
}

/** A 2025 caller: initialize, initialized, then calls on the session; DELETE at the end. */
async function session(endpoint: Endpoint, target: Target): Promise<BenchClient> {
  const id = (lastId += 1);
  const init = await endpoint.post({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: SESSION_VERSION, capabilities: {}, clientInfo: CLIENT_INFO } }, {});
  const sessionId = init.headers['mcp-session-id'];
  if (init.status !== 200 || typeof sessionId !== 'string') throw new Error(`initialize failed: ${init.status} ${init.body.slice(0, 200)}`);
  const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': SESSION_VERSION };
  const initialized = await endpoint.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  if (initialized.status !== 202) throw new Error(`notifications/initialized: ${initialized.status} ${initialized.body.slice(0, 200)}`);
  return {
    async callEcho() {
      await call(endpoint, { name: target.tool, arguments: ECHO_ARGUMENTS }, headers);
    },
    close: () => endpoint.delete(headers),
  };
}

/** One tools/call; resolves with its result once it is checked to be the echo. */
async function call(endpoint: Endpoint, params: object, headers: Record<string, string>): Promise<unknown> {
  const id = (lastId += 1);
  const { status, headers: responseHeaders, body } = await endpoint.post({ jsonrpc: '2.0', id, method: 'tools/call', params }, headers);
  if (status !== 200) throw new Error(`HTTP ${status}: ${body.slice(0, 200)}`);
  const contentType = responseHeaders['content-type'];
  const answer = readAnswer(typeof contentType === 'string' ? contentType : undefined, body, id);
  if (answer.error !== undefined) throw new Error(`JSON-RPC error ${JSON.stringify(answer.error).slice(0, 200)}`);
  checkEcho(answer.result);
  return answer.result;
}
