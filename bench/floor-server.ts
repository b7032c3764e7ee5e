// The floor: the least any HTTP front for MCP can cost on this machine. A bare `node:http` server,
// no framework, that reads the body, parses it, and answers `initialize`, `ping` and the echo tool
// with the JSON server-everything gives (as plain JSON, not SSE), with a session id as a 2025
// server does. Whatever a gateway spends above this, it spends on its own work. A request with a
// 2026-07-28 envelope gets what the least 2026 server gives (modern-minimal.ts): its headers checked
// against the body, the result with resultType and serverInfo; so the floor has a row per era.
// Runs in its own process (bench/processes.ts starts it) and prints `listening URL` on stderr.
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

import { completeResult, envelopeVersion, headerMismatch, mismatchAnswer, type ModernParams } from './modern-minimal.js';
import { answerJson, frontServer, type Reply } from './raw-http-front.js';

interface Request {
  readonly id?: number | string;
  readonly method?: string;
  readonly params?: ModernParams & { readonly name?: string; readonly arguments?: { readonly message?: unknown }; readonly protocolVersion?: string };
}

const SERVER_INFO = { name: 'switchboard-bench-floor', version: '1.0.0' };
let sessions = 0;

// node:http, or with BENCH_FRONT=raw a bare socket reader (raw-http-front.ts): the floor-raw target.
const server = frontServer((method, headers, body, res) => {
  if (method === 'DELETE') return void res.writeHead(200).end();
  if (method !== 'POST') return void res.writeHead(405, { allow: 'POST, DELETE' }).end();
  respond(headers, res, body);
});

function respond(headers: IncomingHttpHeaders, res: Reply, body: string): void {
  let request: Request;
  try {
    request = JSON.parse(body) as Request;
  } catch {
    return answerJson(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  }
  if (request.id === undefined) return void res.writeHead(202).end(); // a notification
  const { id, method, params } = request;
  const modern = envelopeVersion(params);
  if (modern !== undefined) return respondModern(headers, res, request, modern);
  if (method === 'initialize') {
    sessions += 1;
    const result = { protocolVersion: params?.protocolVersion ?? '2025-11-25', capabilities: { tools: {} }, serverInfo: SERVER_INFO };
    return answerJson(res, 200, { result, jsonrpc: '2.0', id }, { 'mcp-session-id': `floor-${sessions}` });
  }
  if (method === 'ping') return answerJson(res, 200, { result: {}, jsonrpc: '2.0', id });
  if (method === 'tools/call' && params?.name === 'echo') {
    return answerJson(res, 200, { result: { content: [{ type: 'text', text: `Echo: ${String(params.arguments?.message)}` }] }, jsonrpc: '2.0', id });
  }
  return answerJson(res, 200, { jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${String(method)}` } });
}

/** A 2026-07-28 request: no initialize or ping in that revision, and every result says what it is. */
function respondModern(headers: IncomingHttpHeaders, res: Reply, { id, method, params }: Request, version: string): void {
  const mismatch = headerMismatch(headers, method, params, version);
  if (mismatch !== undefined) return answerJson(res, 400, mismatchAnswer(id, mismatch));
  if (method === 'tools/call' && params?.name === 'echo') {
    return answerJson(res, 200, { result: completeResult({ content: [{ type: 'text', text: `Echo: ${String(params.arguments?.message)}` }] }, SERVER_INFO), jsonrpc: '2.0', id });
  }
  return answerJson(res, 404, { jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${String(method)}` } });
}


// Loopback only, and a port the bench chose (or any).
server.listen(Number(process.env.PORT ?? '0'), '127.0.0.1', () => {
  process.stderr.write(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp\n`);
});
// Taken down with the bench, whose stdin pipe closes when it dies.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
