// At least 10,000 generated, mutated and hostile messages against one listening gateway in front of
// a real upstream, in both eras: 2025 messages on sessions, and 2026-07-28 requests with their
// per-request envelope and mirrored headers (valid, mutated, lying, hostile). Each must be answered
// (a JSON-RPC error or result, or a 4xx) within a bounded time, never with a 5xx, and afterwards
// well-behaved clients of both eras must still be served.
// The seed is printed; FUZZ_SEED=<n> replays a run. FUZZ_MESSAGES=<n> changes the count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  corpus,
  hostileBodies,
  modernCorpus,
  modernHeaders,
  modernHostileBodies,
  mutateBytes,
  mutateModernHeaders,
  mutateStructure,
  prng,
  randomJson,
  SAFE_TOOLS,
  type Random,
} from '../support/fuzz.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { connect } from '../support/mcp-clients.js';
import { connectModern } from '../support/modern-client.js';
import { MODERN_VERSION } from '../support/modern-http.js';
import { MCP_ACCEPT, openSession } from '../support/raw-http.js';
import { everythingStdio } from '../support/upstreams.js';

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const MESSAGES = Number(process.env.FUZZ_MESSAGES ?? 10_000);
const CONCURRENCY = 16;
const REQUEST_TIMEOUT_MS = 15_000;
const MAX_BODY_BYTES = 64 * 1024;
const UPSTREAM_TIMEOUT_MS = 5_000;
const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '1999-01-01', ''];
const ORIGINS = ['http://localhost:3000', 'https://evil.example', 'null', 'http://127.0.0.1'];
/** The share of generated messages that are 2026-07-28 requests rather than 2025 session traffic. */
const MODERN_SHARE = 0.3;

interface Shot {
  readonly kind: string;
  readonly method: 'POST' | 'DELETE' | 'GET';
  readonly headers: Record<string, string>;
  readonly body?: string | Uint8Array;
  /** The status the spec gives this message, for the hostile kinds that have one fixed answer. */
  readonly expected?: number;
}

interface Outcome {
  readonly kind: string;
  readonly status: number | 'timeout' | 'network-error';
  readonly detail?: string;
  readonly expected?: number;
}

let gateway: TestGateway;
const sessions: string[] = [];

beforeAll(async () => {
  console.log(`fuzz seed ${SEED} (replay with FUZZ_SEED=${SEED}), ${MESSAGES} messages`);
  gateway = await startGateway({
    server: { maxBodyBytes: MAX_BODY_BYTES },
    mcpServers: { everything: { ...everythingStdio(), timeoutMs: UPSTREAM_TIMEOUT_MS } },
    // Should a mutation make an upstream ask for input, the parked call is dropped soon.
    mrtr: { inputTimeoutSeconds: 5 },
  });
  for (const version of ['2025-11-25', '2025-06-18', '2025-03-26']) sessions.push((await openSession(gateway.url, version)).sessionId);
}, 60_000);

afterAll(async () => gateway?.close());

/** One message: mostly mutations of well-formed ones, some generated from nothing, some hostile. */
function nextShot(random: Random, index: number): Shot {
  const headers: Record<string, string> = { accept: MCP_ACCEPT, 'content-type': 'application/json' };
  const roll = random.next();
  if (roll < 0.9) headers['mcp-session-id'] = random.pick(sessions);
  else if (roll < 0.95) headers['mcp-session-id'] = random.pick(['AAAAAAAAAAAAAAAAAAAAAA', 'x', '\u00e9', ' '.repeat(5), 'A'.repeat(300)]).replace(/[^\x20-\x7e]/g, '?');
  if (index % 50 === 0) {
    // Hostile bodies go with well-formed headers, so the answer is about the body (413, 400).
    const hostile = hostileBodies(random, MAX_BODY_BYTES);
    const { kind, body } = hostile[(index / 50) % hostile.length]!;
    return { kind: `hostile:${kind}`, method: 'POST', headers: { ...headers, 'mcp-session-id': random.pick(sessions) }, body };
  }
  if (index % 50 === 25) {
    // Hostile 2026 bodies, likewise with the headers a client would send for them.
    const hostile = modernHostileBodies(random, MAX_BODY_BYTES);
    const { kind, body, headers: mirrored, expected } = hostile[((index - 25) / 50) % hostile.length]!;
    return { kind: `modern-hostile:${kind}`, method: 'POST', headers: { accept: MCP_ACCEPT, 'content-type': 'application/json', ...mirrored }, body, ...(expected !== undefined && { expected }) };
  }
  if (random.chance(0.05)) headers['mcp-protocol-version'] = random.pick(PROTOCOL_VERSIONS);
  if (random.chance(0.03)) headers.origin = random.pick(ORIGINS);
  if (random.chance(0.02)) headers.accept = random.pick(['application/json', 'text/html', '*/*', '']);
  if (random.chance(0.02)) headers['content-type'] = random.pick(['text/plain', 'application/json; charset=utf-8', 'application/x-www-form-urlencoded', '']);

  if (random.chance(0.01)) {
    // Never one of our own sessions: deleting those would end the run's sessions.
    return { kind: 'delete', method: 'DELETE', headers: { 'mcp-session-id': random.pick(['AAAAAAAAAAAAAAAAAAAAAA', 'nope']) } };
  }
  if (random.chance(0.005)) return { kind: 'get-without-session', method: 'GET', headers: { accept: 'text/event-stream' } };
  if (random.chance(MODERN_SHARE)) return modernShot(random, headers);

  const source = random.pick(corpus(random));
  const style = random.int(10);
  if (style < 4) return { kind: 'structure', method: 'POST', headers, body: JSON.stringify(safe(mutateStructure(random, source))) ?? 'null' };
  if (style < 7) return { kind: 'bytes', method: 'POST', headers, body: mutateBytes(random, JSON.stringify(source)) };
  if (style < 8) return { kind: 'generated', method: 'POST', headers, body: JSON.stringify(randomJson(random, 4)) ?? 'null' };
  return { kind: 'well-formed', method: 'POST', headers, body: JSON.stringify(source) };
}

/**
 * A 2026 request, its mirrored headers on top of whatever the 2025 generator put there (a session
 * id among them, which a 2026 request must ignore): as sent, mutated in structure or bytes, or
 * with headers that contradict the body.
 */
function modernShot(random: Random, base: Record<string, string>): Shot {
  const source = random.pick(modernCorpus(random));
  const style = random.int(10);
  if (style < 3) {
    const message = safe(mutateStructure(random, source));
    return { kind: 'modern:structure', method: 'POST', headers: { ...base, ...modernHeaders(message) }, body: JSON.stringify(message) ?? 'null' };
  }
  if (style < 5) return { kind: 'modern:bytes', method: 'POST', headers: { ...base, ...modernHeaders(source) }, body: mutateBytes(random, JSON.stringify(source)) };
  if (style < 8) return { kind: 'modern:headers', method: 'POST', headers: { ...base, ...mutateModernHeaders(random, modernHeaders(source)) }, body: JSON.stringify(source) };
  return { kind: 'modern:well-formed', method: 'POST', headers: { ...base, ...modernHeaders(source) }, body: JSON.stringify(source) };
}

/**
 * Keeps tools/call to the tools that answer at once: a mutation must not start server-everything's
 * long-running operation or a request to the client that this raw client never answers.
 */
function safe(message: unknown): unknown {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return message;
  const { method, params } = message as { method?: unknown; params?: unknown };
  if (method !== 'tools/call' || typeof params !== 'object' || params === null) return message;
  const name = (params as { name?: unknown }).name;
  if (typeof name === 'string' && name.startsWith('everything__') && !SAFE_TOOLS.includes(name)) {
    return { ...message, params: { ...params, name: 'everything__echo' } };
  }
  return message;
}

async function fire(shot: Shot): Promise<Outcome> {
  const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  try {
    const response = await fetch(gateway.url, { method: shot.method, headers: shot.headers, ...(shot.body !== undefined && { body: shot.body }), signal });
    if (shot.method === 'GET' && response.status === 200) {
      await response.body?.cancel();
      return { kind: shot.kind, status: 200 };
    }
    const text = await response.text();
    const problem = problemWith(response, text);
    return { kind: shot.kind, status: response.status, ...(problem && { detail: problem }), ...(shot.expected !== undefined && { expected: shot.expected }) };
  } catch (error) {
    if (signal.aborted) return { kind: shot.kind, status: 'timeout' };
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    const body = typeof shot.body === 'string' ? shot.body : Buffer.from(shot.body ?? []).toString('latin1');
    return { kind: shot.kind, status: 'network-error', detail: `${error instanceof Error ? error.message : String(error)}${cause} (body ${body.slice(0, 300)})` };
  }
}

/** A 200 must carry JSON-RPC (as JSON or in SSE events); undefined when the answer is fine. */
function problemWith(response: Response, text: string): string | undefined {
  if (response.status !== 200) return undefined;
  const type = response.headers.get('content-type') ?? '';
  const payloads = type.includes('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
        .filter((data) => data !== '')
    : [text];
  try {
    const messages = payloads.flatMap((payload) => [JSON.parse(payload) as unknown].flat());
    const bad = messages.find((message) => typeof message !== 'object' || message === null || (message as { jsonrpc?: unknown }).jsonrpc !== '2.0');
    return bad === undefined ? undefined : `not JSON-RPC: ${JSON.stringify(bad).slice(0, 200)}`;
  } catch {
    return `unparseable 200 body: ${text.slice(0, 200)}`;
  }
}

describe('the gateway under fuzzing', () => {
  it(
    'answers every generated, mutated and hostile message with JSON-RPC or a 4xx in bounded time, and keeps serving',
    async () => {
      const random = prng(SEED);
      const shots = Array.from({ length: MESSAGES }, (_, index) => nextShot(random, index));
      const outcomes: Outcome[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < shots.length) outcomes.push(await fire(shots[next++]!));
        }),
      );

      const byStatus = new Map<string, number>();
      for (const { status } of outcomes) byStatus.set(String(status), (byStatus.get(String(status)) ?? 0) + 1);
      console.log(`fuzz seed ${SEED}: ${outcomes.length} answered`, Object.fromEntries([...byStatus].sort()));

      const failures = outcomes.filter(
        (outcome) =>
          typeof outcome.status !== 'number' ||
          outcome.status >= 500 ||
          outcome.status < 200 ||
          outcome.detail !== undefined ||
          (outcome.expected !== undefined && outcome.status !== outcome.expected),
      );
      expect(failures.slice(0, 10), `seed ${SEED}`).toEqual([]);
      expect(outcomes).toHaveLength(MESSAGES);
      const kinds = new Set(outcomes.map((outcome) => outcome.kind));
      for (const kind of ['hostile:deep-array', 'hostile:huge-string', 'hostile:invalid-utf8', 'hostile:batch', 'hostile:oversize', 'bytes', 'structure']) {
        expect(kinds).toContain(kind);
      }
      for (const kind of ['modern:well-formed', 'modern:structure', 'modern:bytes', 'modern:headers', 'modern-hostile:meta-not-object', 'modern-hostile:too-deep-meta', 'modern-hostile:name-base64']) {
        expect(kinds).toContain(kind);
      }
      expect(outcomes.find((outcome) => outcome.kind === 'hostile:oversize')?.status).toBe(413);
      expect(outcomes.find((outcome) => outcome.kind === 'hostile:deep-array')?.status).toBe(400);

      // A well-behaved client is still served, lists and calls.
      const client = await connect('v2', gateway.url);
      try {
        const { tools } = (await client.request('tools/list')) as { tools: { name: string }[] };
        expect(tools.map((tool) => tool.name)).toContain('everything__echo');
        const result = await client.request('tools/call', { name: 'everything__echo', arguments: { message: 'still here' } });
        expect(JSON.stringify(result)).toContain('still here');
      } finally {
        await client.close();
      }
      const modern = await connectModern(gateway.url);
      try {
        expect(modern.getNegotiatedProtocolVersion()).toBe(MODERN_VERSION);
        const result = await modern.callTool({ name: 'everything__echo', arguments: { message: 'still here in 2026' } });
        expect(JSON.stringify(result.content)).toContain('still here in 2026');
      } finally {
        await modern.close();
      }
    },
    120_000,
  );
});
