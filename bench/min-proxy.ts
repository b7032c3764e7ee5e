// The reference proxy: the least any Node proxy of one stdio MCP server can cost on this machine.
// A bare `node:http` front (the floor's) and a newline-JSON pipe to server-everything, nothing
// else: no sessions kept, no auth, policy, catalogue, logs or metrics, no SSE, no cancellation, no
// restarts. It answers initialize and ping itself and forwards everything else with its id
// rewritten. What it costs above the floor is what the stdio hop costs; a real gateway can only
// come near it, so its row says which of the bench's targets any proxy could meet here. A request
// with a 2026-07-28 envelope is served as the least 2026 front of a 2025 server must
// (modern-minimal.ts): headers checked, the envelope kept from the upstream, the result marked
// complete with the proxy's serverInfo. Its two rows say what the revision itself costs a proxy.
// Runs in its own process: `min-proxy.ts COMMAND [ARGS...]`; prints `listening URL` on stderr.
import { spawn } from 'node:child_process';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

import { completeResult, envelopeVersion, headerMismatch, mismatchAnswer, withoutEnvelope, type ModernParams } from './modern-minimal.js';
import { answerJson, frontServer, type Reply } from './raw-http-front.js';

interface Message {
  id?: number | string | null;
  method?: string;
  params?: ModernParams & { protocolVersion?: string };
  result?: Record<string, unknown>;
}

const SERVER_INFO = { name: 'bench-min-proxy', version: '1.0.0' };

const [command, ...args] = process.argv.slice(2);
if (command === undefined) throw new Error('usage: min-proxy.ts COMMAND [ARGS...]');
const upstream = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
/**
 * What to do with the upstream's answer to each id this proxy sent, in a slot emptied when the
 * answer comes: V8 keeps whatever a Map's discarded hash tables held alive through young
 * collections once the Map is old, and the closures hold the HTTP exchanges (src/support/transient-map.ts).
 */
interface Waiting {
  answer: ((answer: Message) => void) | undefined;
}
const waiting = new Map<number, Waiting>();

function onAnswer(id: number, answer: (answer: Message) => void): void {
  waiting.set(id, { answer });
}
let nextId = 1;
let sessions = 0;
/**
 * CPU to burn per forwarded call (MIN_PROXY_BUSY_US, the bench's min-proxy-busy target): a proxy
 * that costs exactly that much more than the reference, to tell what a microsecond of a front's CPU
 * is worth in calls per second on this machine.
 */
const BUSY_MS = Number(process.env.MIN_PROXY_BUSY_US ?? '0') / 1000;

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

function toUpstream(message: object): void {
  upstream.stdin.write(`${JSON.stringify(message)}\n`);
}

let pending = '';
upstream.stdout.setEncoding('utf8');
upstream.stdout.on('data', (chunk: string) => {
  pending += chunk;
  for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n')) {
    const message = JSON.parse(pending.slice(0, end)) as Message;
    pending = pending.slice(end + 1);
    const slot = typeof message.id === 'number' ? waiting.get(message.id) : undefined;
    const answered = slot?.answer;
    if (answered === undefined) continue; // a notification or a request of the server's: dropped
    slot!.answer = undefined;
    waiting.delete(message.id as number);
    answered(message);
  }
});


// node:http, or with BENCH_FRONT=raw a bare socket reader (raw-http-front.ts): the min-proxy-raw target.
const server = frontServer((method, headers, body, res) => {
  if (method !== 'POST') return void res.writeHead(method === 'DELETE' ? 200 : 405).end();
  const message = JSON.parse(body) as Message;
  if (message.id === undefined) return void res.writeHead(202).end();
  const modern = envelopeVersion(message.params);
  if (modern !== undefined) return forwardModern(headers, res, message, modern);
  if (message.method === 'initialize') {
    sessions += 1;
    const result = { protocolVersion: message.params?.protocolVersion ?? '2025-11-25', capabilities: { tools: {} }, serverInfo: SERVER_INFO };
    return answerJson(res, 200, { jsonrpc: '2.0', id: message.id, result }, { 'mcp-session-id': `min-proxy-${sessions}` });
  }
  if (message.method === 'ping') return answerJson(res, 200, { jsonrpc: '2.0', id: message.id, result: {} });
  if (BUSY_MS > 0) busy(BUSY_MS);
  const id = nextId++;
  const clientId = message.id;
  onAnswer(id, (answer) => answerJson(res, 200, { ...answer, id: clientId }));
  toUpstream({ ...message, id });
});

/** A 2026-07-28 request to the 2025 upstream: nothing of the envelope goes up, and the answer comes back as 2026's. */
function forwardModern(headers: IncomingHttpHeaders, res: Reply, message: Message, version: string): void {
  const mismatch = headerMismatch(headers, message.method, message.params, version);
  if (mismatch !== undefined) return answerJson(res, 400, mismatchAnswer(message.id, mismatch));
  if (BUSY_MS > 0) busy(BUSY_MS);
  const id = nextId++;
  const clientId = message.id;
  onAnswer(id, (answer) => {
    if (answer.result === undefined) return answerJson(res, 200, { ...answer, id: clientId });
    answerJson(res, 200, { jsonrpc: '2.0', id: clientId, result: completeResult(answer.result, SERVER_INFO) });
  });
  toUpstream({ ...message, id, params: message.params && withoutEnvelope(message.params) });
}

// The upstream's own handshake first, then the port: ready means ready to forward.
onAnswer(0, () => {
  toUpstream({ jsonrpc: '2.0', method: 'notifications/initialized' });
  server.listen(Number(process.env.PORT ?? '0'), '127.0.0.1', () => {
    process.stderr.write(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp\n`);
  });
});
toUpstream({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench-min-proxy', version: '1.0.0' } } });

// Taken down with the bench, whose stdin pipe closes when it dies; its upstream goes with it.
process.stdin.on('end', () => {
  upstream.kill();
  process.exit(0);
});
process.stdin.resume();
