// limits.servers as the gateway applies them where a request leaves for its upstream: which
// requests count, per principal and per tool, the error a refusal gets, and what a reload keeps.
import { afterEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/auth/principal.js';
import { ERRORS } from '../../src/protocol/error-catalogue.js';
import { ServerLimitError, ServerLimits, type LimitedRequest } from '../../src/gateway/calls/server-limits.js';
import { MemoryQuotaLimiter } from '../../src/limits/memory-quotas.js';
import type { Release } from '../../src/limits/concurrency-gate.js';
import { CancelSource } from '../../src/protocol/cancellation.js';
import { UpstreamCancelledError } from '../../src/upstream/errors.js';

const alice: Principal = { sub: 'alice', scopes: [], claims: {} };
const bob: Principal = { sub: 'bob', scopes: [], claims: {} };

function call(tool: string, principal: Principal | undefined = alice, extra: Partial<LimitedRequest> = {}): LimitedRequest {
  return { method: 'tools/call', params: { name: tool }, principal, cancellation: new CancelSource(), continuesCall: false, ...extra };
}

let opened = 0;
const limits: ServerLimits[] = [];
function serverLimits(servers: Parameters<ServerLimits['configure']>[0]): ServerLimits {
  const made = new ServerLimits(() => {
    opened += 1;
    return new MemoryQuotaLimiter();
  });
  made.configure(servers);
  limits.push(made);
  return made;
}

afterEach(async () => {
  await Promise.all(limits.splice(0).map((made) => made.close()));
  opened = 0;
});

async function outcome(admitting: Promise<Release | undefined>): Promise<unknown> {
  return admitting.then(
    () => 'admitted',
    (error: unknown) => error,
  );
}

describe('server limits', () => {
  it('has nothing for a server without limits, and opens no limiter for caps alone', () => {
    const made = serverLimits({ GitHub: { maxConcurrent: 2, maxQueued: 1, queueTimeoutMs: 100 }, empty: {} });
    expect(made.of('search')).toBeUndefined();
    expect(made.of('empty')).toBeUndefined();
    expect(made.of('GitHub')).toBeDefined();
    expect(opened).toBe(0);
  });

  it('refuses a principal over a server rate with the server and the wait in message and data', async () => {
    const limit = serverLimits({ GitHub: { requestsPerMinute: 2 } }).of('GitHub')!;
    await limit.admit(call('search'));
    await limit.admit(call('other'));
    const refused = await outcome(limit.admit(call('search')));
    expect(refused).toBeInstanceOf(ServerLimitError);
    const error = refused as ServerLimitError;
    expect(error.code).toBe(ERRORS.LimitExceeded.code);
    expect(error.reason).toBe('rate-limit');
    expect(error.message).toMatch(/^Rate limit of server "GitHub" reached \(2 calls a minute per principal\): retry in \d+ s$/);
    expect(error.data).toEqual({ server: 'GitHub', reason: 'rate-limit', retryAfterSeconds: error.retryAfterSeconds });
    expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    // Another principal has a count of its own.
    expect(await outcome(limit.admit(call('search', bob)))).toBe('admitted');
  });

  it('counts calls, gets, reads and completions, and leaves subscriptions out', async () => {
    const limit = serverLimits({ s: { requestsPerMinute: 4 } }).of('s')!;
    const request = (method: string): LimitedRequest => ({ ...call('x'), method, params: {} });
    for (const method of ['resources/subscribe', 'resources/unsubscribe', 'resources/subscribe']) await limit.admit(request(method));
    for (const method of ['tools/call', 'prompts/get', 'resources/read', 'completion/complete']) await limit.admit(request(method));
    expect(await outcome(limit.admit(request('prompts/get')))).toBeInstanceOf(ServerLimitError);
    expect(await outcome(limit.admit(request('resources/unsubscribe')))).toBe('admitted');
  });

  it('does not count again a 2026 retry that continues a call', async () => {
    const limit = serverLimits({ s: { requestsPerMinute: 1 } }).of('s')!;
    await limit.admit(call('x'));
    expect(await outcome(limit.admit(call('x', alice, { continuesCall: true })))).toBe('admitted');
  });

  it('refuses a tool over its own rate, naming it, while the server\'s other tools go on', async () => {
    const limit = serverLimits({ GitHub: { requestsPerMinute: 10, tools: { search_code: { requestsPerMinute: 1 } } } }).of('GitHub')!;
    await limit.admit(call('search_code'));
    const error = (await outcome(limit.admit(call('search_code')))) as ServerLimitError;
    expect(error.reason).toBe('tool-rate-limit');
    expect(error.message).toMatch(/^Rate limit of tool "search_code" of server "GitHub" reached \(1 call a minute per principal\): retry in \d+ s$/);
    expect(error.data).toMatchObject({ server: 'GitHub', tool: 'search_code', reason: 'tool-rate-limit' });
    expect(await outcome(limit.admit(call('list_issues')))).toBe('admitted');
  });

  it('counts unauthenticated callers together', async () => {
    const limit = serverLimits({ s: { requestsPerMinute: 1 } }).of('s')!;
    await limit.admit(call('x', undefined));
    expect(await outcome(limit.admit(call('x', undefined)))).toBeInstanceOf(ServerLimitError);
  });

  it('refuses a call when the server is busy and its queue is full, naming the server', async () => {
    const limit = serverLimits({ slow: { maxConcurrent: 1, maxQueued: 0, queueTimeoutMs: 1_000 } }).of('slow')!;
    const release = await limit.admit(call('x'));
    const error = (await outcome(limit.admit(call('x')))) as ServerLimitError;
    expect(error).toBeInstanceOf(ServerLimitError);
    expect(error.reason).toBe('queue-full');
    expect(error.message).toBe('Server "slow" is busy: 1 call in progress and the queue full: retry in 1 s');
    expect(error.data).toEqual({ server: 'slow', reason: 'queue-full', retryAfterSeconds: 1 });
    release?.();
    expect(await outcome(limit.admit(call('x')))).toBe('admitted');
  });

  it('turns a cancellation while waiting into the cancelled-request error', async () => {
    const limit = serverLimits({ slow: { maxConcurrent: 1, maxQueued: 5, queueTimeoutMs: 10_000 } }).of('slow')!;
    await limit.admit(call('x'));
    const cancellation = new CancelSource();
    const waiting = outcome(limit.admit(call('x', alice, { cancellation })));
    cancellation.cancel();
    expect(await waiting).toBeInstanceOf(UpstreamCancelledError);
  });

  it('does not take a slot for a request that does not count', async () => {
    const limit = serverLimits({ slow: { maxConcurrent: 1, maxQueued: 0, queueTimeoutMs: 1_000 } }).of('slow')!;
    await limit.admit(call('x'));
    expect(await outcome(limit.admit({ ...call('x'), method: 'resources/subscribe' }))).toBe('admitted');
  });

  it('keeps a server\'s calls in progress across a reload that changes its cap, and lets waiters through when the cap goes', async () => {
    const made = serverLimits({ slow: { maxConcurrent: 1, maxQueued: 5, queueTimeoutMs: 10_000 } });
    await made.of('slow')!.admit(call('x'));
    const waiting = outcome(made.of('slow')!.admit(call('x')));
    made.configure({ slow: { maxConcurrent: 1, maxQueued: 0, queueTimeoutMs: 10_000 } });
    // Still one in progress: the new limits refuse at once.
    expect(((await outcome(made.of('slow')!.admit(call('x')))) as ServerLimitError).reason).toBe('queue-full');
    made.configure({});
    expect(made.of('slow')).toBeUndefined();
    expect(await waiting).toBe('admitted');
  });

  it('opens the limiter once, when a reload first brings a rate', () => {
    const made = serverLimits({});
    expect(opened).toBe(0);
    made.configure({ a: { requestsPerMinute: 1 }, b: { tools: { t: { requestsPerMinute: 1 } } } });
    made.configure({ a: { requestsPerMinute: 2 } });
    expect(opened).toBe(1);
  });
});
