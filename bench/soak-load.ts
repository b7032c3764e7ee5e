// The soak's traffic: every kind of work that holds something in the gateway while it lasts, so
// that whatever is not given back afterwards adds up over a long run. Each worker loops until the
// deadline, one operation at a time, with a short pause between operations (a steady load, not a
// saturating one: the samples must come on time on two cores).
//   churn    a session opened (initialize, initialized), used (tools/list, an echo) and DELETEd
//   calls    tools/call echo on a long-lived session
//   lists    tools/list, prompts/list, resources/list on a long-lived session
//   streams  a GET stream opened on a session, held a moment, dropped; the session is replaced now and then
//   listens  a 2026 subscriptions/listen opened, acknowledged, held a moment, dropped
//   modern   a 2026 tools/call echo (no session)
//   upstream2026  the gateway's 2026-07-28 upstreams (the tests' modern fixture, over stdio and over
//            HTTP, a round on each in turn), each round: a 2026 echo; a 2025 session's echo
//            (bridged); a 2026 call whose upstream asks for input, answered on the retry; a 2026
//            call the client drops after its first progress, which must reach the upstream as a
//            cancellation
// Every operation is bounded in time (OP_TIMEOUT_MS): one that hangs counts as an error, it does
// not stall the run.
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';

import { endpointOn, MODERN_META, modernHeaders, openSession, request, type Endpoint } from './http-load.js';
import { ECHO_ARGUMENTS } from './operations.js';

export const WORK_KINDS = ['churn', 'calls', 'lists', 'streams', 'listens', 'modern', 'upstream2026'] as const;
export type WorkKind = (typeof WORK_KINDS)[number];

/** Workers per kind: the streams and listens ones are the ones that hold connections open. */
export const WORKERS: Readonly<Record<WorkKind, number>> = { churn: 2, calls: 2, lists: 1, streams: 2, listens: 2, modern: 1, upstream2026: 1 };

const OP_TIMEOUT_MS = 10_000;
const ECHO = { name: 'everything__echo', arguments: ECHO_ARGUMENTS };
/**
 * The 2026-07-28 upstreams' names in the soak's config (soak-run.ts): over stdio, the gateway
 * cancels with notifications/cancelled; over HTTP, by closing the request's stream.
 */
export const MODERN_UPSTREAMS = { stdio: 'modern', http: 'modernhttp' } as const;
type ModernUpstream = (typeof MODERN_UPSTREAMS)[keyof typeof MODERN_UPSTREAMS];
/** Calls per round on one 2026 upstream (the dropped call's follow-up aside). */
const ROUND = 4;
/** What a 2026 client declares to be asked for input (the fixture's ask_elicitation asks a form). */
const ELICITING_META = { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } };
/** How long a dropped call's cancellation may take to reach its upstream. */
const CANCEL_SEEN_WITHIN_MS = 5_000;
/** A GET stream's session is replaced after this many streams: sessions with streams get deleted too. */
const STREAMS_PER_SESSION = 10;

export interface SoakCounts {
  readonly ops: Record<WorkKind, number>;
  readonly errors: Record<WorkKind, number>;
  /** The last few error messages, for the report. */
  readonly lastErrors: string[];
}

export interface SoakLoad {
  readonly counts: SoakCounts;
  /** Resolves once every worker has finished its operation in progress and cleaned up. */
  stop(): Promise<void>;
}

export function startSoakLoad(url: string, paceMs: number): SoakLoad {
  const { origin, pathname } = new URL(url);
  const pool = new Pool(origin, { connections: 16, headersTimeout: OP_TIMEOUT_MS, bodyTimeout: OP_TIMEOUT_MS });
  const endpoint = endpointOn(pool, pathname);
  const zero = () => Object.fromEntries(WORK_KINDS.map((kind) => [kind, 0])) as Record<WorkKind, number>;
  const counts: SoakCounts = { ops: zero(), errors: zero(), lastErrors: [] };
  let running = true;

  const loop = async (kind: WorkKind, work: Worker): Promise<void> => {
    let state: WorkerState = {};
    while (running) {
      try {
        state = await withTimeout(work(endpoint, url, state), `${kind} operation`);
        counts.ops[kind] += 1;
      } catch (error) {
        counts.errors[kind] += 1;
        counts.lastErrors.push(`${kind}: ${error instanceof Error ? error.message : String(error)}`);
        if (counts.lastErrors.length > 5) counts.lastErrors.shift();
        state = {};
      }
      await sleep(paceMs);
    }
    if (state.session) await endpoint.delete(state.session).catch(() => {});
  };
  const loops = WORK_KINDS.flatMap((kind) => Array.from({ length: WORKERS[kind] }, () => loop(kind, WORK[kind])));
  return {
    counts,
    async stop() {
      running = false;
      await Promise.all(loops);
      await pool.close();
    },
  };
}

/** What a worker keeps between operations: its session, and how many streams it has had. */
interface WorkerState {
  readonly session?: Record<string, string>;
  readonly uses?: number;
  /** The last call this worker dropped, until its upstream is seen to have cancelled it. */
  readonly dropped?: { readonly upstream: ModernUpstream; readonly tag: string };
}

type Worker = (endpoint: Endpoint, url: string, state: WorkerState) => Promise<WorkerState>;

const LIST_METHODS = ['tools/list', 'prompts/list', 'resources/list'];

const WORK: Readonly<Record<WorkKind, Worker>> = {
  async churn(endpoint) {
    const session = await openSession(endpoint);
    await request(endpoint, 'tools/list', {}, session);
    await request(endpoint, 'tools/call', ECHO, session);
    await endpoint.delete(session);
    return {};
  },
  async calls(endpoint, _url, state) {
    const session = state.session ?? (await openSession(endpoint));
    await request(endpoint, 'tools/call', ECHO, session);
    return { session };
  },
  async lists(endpoint, _url, state) {
    const session = state.session ?? (await openSession(endpoint));
    const uses = state.uses ?? 0;
    await request(endpoint, LIST_METHODS[uses % LIST_METHODS.length]!, {}, session);
    return { session, uses: uses + 1 };
  },
  async streams(endpoint, url, state) {
    let session = state.session ?? (await openSession(endpoint));
    let uses = state.uses ?? 0;
    if (uses >= STREAMS_PER_SESSION) {
      await endpoint.delete(session);
      session = await openSession(endpoint);
      uses = 0;
    }
    await holdStream(url, { method: 'GET', headers: { ...session, accept: 'text/event-stream' } }, (text) => text.includes('retry:'));
    return { session, uses: uses + 1 };
  },
  async listens(_endpoint, url) {
    const body = { jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: MODERN_META } };
    await holdStream(
      url,
      {
        method: 'POST',
        headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...modernHeaders('subscriptions/listen') },
        body: JSON.stringify(body),
      },
      (text) => text.includes('notifications/subscriptions/acknowledged'),
    );
    return {};
  },
  async modern(endpoint) {
    await request(endpoint, 'tools/call', { ...ECHO, _meta: MODERN_META }, modernHeaders('tools/call', ECHO.name));
    return {};
  },
  async upstream2026(endpoint, url, state) {
    const session = state.session ?? (await openSession(endpoint));
    const uses = state.uses ?? 0;
    // A dropped call is followed up first: its cancellation must have reached the upstream.
    if (state.dropped !== undefined) {
      await cancellationSeen(endpoint, state.dropped.upstream, state.dropped.tag);
      return { session, uses };
    }
    const next = { session, uses: uses + 1 };
    const upstream = Math.floor(uses / ROUND) % 2 === 0 ? MODERN_UPSTREAMS.stdio : MODERN_UPSTREAMS.http;
    switch (uses % ROUND) {
      case 0:
        expectText(await modernCall(endpoint, upstream, 'echo', { message: 'a 2026 call' }), 'a 2026 call');
        return next;
      case 1:
        expectText(await request(endpoint, 'tools/call', { name: `${upstream}__echo`, arguments: { message: 'a 2025 call' } }, session), 'a 2025 call');
        return next;
      case 2:
        await answeredOnRetry(endpoint, upstream);
        return next;
      default: {
        const tag = `soak-${uses}`;
        await dropAfterProgress(url, upstream, tag);
        return { ...next, dropped: { upstream, tag } };
      }
    }
  },
};

/** A 2026 tools/call of `upstream`'s tool `name`, with `meta` as its envelope. */
function modernCall(endpoint: Endpoint, upstream: ModernUpstream, name: string, args: object, meta: object = MODERN_META, extra: object = {}): Promise<unknown> {
  const exposed = `${upstream}__${name}`;
  return request(endpoint, 'tools/call', { name: exposed, arguments: args, ...extra, _meta: meta }, modernHeaders('tools/call', exposed));
}

function expectText(result: unknown, expected: string): void {
  const text = (result as { content?: { text?: unknown }[] } | undefined)?.content?.[0]?.text;
  if (typeof text !== 'string' || !text.includes(expected)) throw new Error(`expected "${expected}" in ${JSON.stringify(result).slice(0, 200)}`);
}

/** The upstream asks for input (MRTR): the gateway answers input_required, and the retry with the answer completes. */
async function answeredOnRetry(endpoint: Endpoint, upstream: ModernUpstream): Promise<void> {
  const args = { message: 'soak?' };
  const first = (await modernCall(endpoint, upstream, 'ask_elicitation', args, ELICITING_META)) as { resultType?: unknown; inputRequests?: Record<string, unknown>; requestState?: unknown };
  const key = Object.keys(first.inputRequests ?? {})[0];
  if (first.resultType !== 'input_required' || key === undefined || typeof first.requestState !== 'string') {
    throw new Error(`expected input_required, got ${JSON.stringify(first).slice(0, 200)}`);
  }
  const answers = { inputResponses: { [key]: { action: 'accept', content: { answer: 'answered in the soak' } } }, requestState: first.requestState };
  expectText(await modernCall(endpoint, upstream, 'ask_elicitation', args, ELICITING_META, answers), 'answered in the soak');
}

/** A slow 2026 call, dropped by its client once its first progress arrives: how a 2026 client cancels. */
async function dropAfterProgress(url: string, upstream: ModernUpstream, tag: string): Promise<void> {
  const name = `${upstream}__slow`;
  const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: { ms: 60_000, tag }, _meta: { ...MODERN_META, progressToken: tag } } };
  await holdStream(
    url,
    { method: 'POST', headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...modernHeaders('tools/call', name) }, body: JSON.stringify(body) },
    (text) => text.includes('notifications/progress'),
  );
}

/** Waits until `upstream` lists `tag` among the calls it saw cancelled. */
async function cancellationSeen(endpoint: Endpoint, upstream: ModernUpstream, tag: string): Promise<void> {
  const deadline = performance.now() + CANCEL_SEEN_WITHIN_MS;
  for (;;) {
    const result = await modernCall(endpoint, upstream, 'cancellations', {});
    const text = (result as { content?: { text?: unknown }[] }).content?.[0]?.text;
    if (typeof text === 'string' && (JSON.parse(text) as unknown[]).includes(tag)) return;
    if (performance.now() > deadline) throw new Error(`${upstream} did not see dropped call ${tag} cancelled within ${CANCEL_SEEN_WITHIN_MS} ms`);
    await sleep(50);
  }
}

/** Opens a streamed answer, reads until `opened` says it is under way, holds it 100 to 600 ms, then drops it as a client that goes away would. */
async function holdStream(url: string, init: RequestInit, opened: (text: string) => boolean): Promise<void> {
  const controller = new AbortController();
  const signal = AbortSignal.any([controller.signal, AbortSignal.timeout(OP_TIMEOUT_MS)]);
  try {
    const response = await fetch(url, { ...init, signal });
    if (response.status !== 200 || response.body === null) throw new Error(`${init.method} ${response.status}: ${(await response.text()).slice(0, 200)}`);
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!opened(text)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`${init.method}: the stream ended before it opened`);
      text += decoder.decode(value, { stream: true });
    }
    await sleep(100 + Math.random() * 500);
  } finally {
    controller.abort();
  }
}

function withTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${OP_TIMEOUT_MS} ms`)), OP_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
