// A smoke run of the bench's load machinery, small enough for CI: the floor server and a stdio
// server spoken to directly, one tiny echo comparison, and the many-tools fixture's list change.
// Nothing here asserts a time; it proves the bench's parts still fit together.
import { afterAll, describe, expect, it } from 'vitest';

import { figuresOf } from '../../bench/figures.js';
import { ECHO_ARGUMENTS, MODERN_VERSION } from '../../bench/operations.js';
import { lightLoad } from '../../bench/light-load.js';
import { startFloor, startMinProxy, stopAll } from '../../bench/processes.js';
import { MANY_TOOLS } from '../../bench/scale-tools-list.js';
import { compareTargets } from '../../bench/scenarios.js';
import { startStdioPeer, type StdioPeer } from '../../bench/stdio-peer.js';
import type { Target } from '../../bench/targets.js';

const peers: StdioPeer[] = [];
afterAll(async () => {
  await Promise.all(peers.map((peer) => peer.stop()));
  await stopAll();
});

async function manyTools(toolCount: number): Promise<StdioPeer> {
  const peer = await startStdioPeer(process.execPath, [MANY_TOOLS], 'ignore', { TOOL_COUNT: String(toolCount) });
  peers.push(peer);
  return peer;
}

describe('the bench', () => {
  it('measures echo on the floor and on a stdio server in interleaved rounds, without errors', async () => {
    const floor = await startFloor();
    const stdio = await manyTools(3);
    const targets: Target[] = [
      { name: 'floor', label: 'floor', tool: 'echo', era: '2025', endpoint: { kind: 'http', url: floor.url }, upstreamPid: floor.pid },
      { name: 'stdio', label: 'stdio', tool: 'echo', era: '2025', endpoint: { kind: 'stdio', peer: stdio }, upstreamPid: stdio.pid },
    ];
    const scenario = { label: 'tiny', workers: 3, warmupCalls: 3, calls: 30, maxDurationMs: 5_000, rounds: 2 };
    const { results } = await compareTargets({ phase: 'echo', load: lightLoad, operation: 'echo', scenario, targets, progress: () => {} });
    for (const { result } of results) {
      expect(result.errors).toBe(0);
      expect(result.samples).toHaveLength(30);
    }
  });

  it.each(['http', 'raw'] as const)('asks the floor and the reference proxy (%s front) in both eras: 2026 answers are complete results, and headers that do not mirror the body are refused', async (front) => {
    const [floor, proxy] = await Promise.all([startFloor(front), startMinProxy(0, front)]);
    const targets: Target[] = [
      { name: 'floor-2026', label: 'floor 2026', tool: 'echo', era: '2026', endpoint: { kind: 'http', url: floor.url }, upstreamPid: floor.pid },
      { name: 'min-proxy', label: 'min-proxy', tool: 'echo', era: '2025', endpoint: { kind: 'http', url: proxy.url }, frontPid: proxy.pid },
      { name: 'min-proxy-2026', label: 'min-proxy 2026', tool: 'echo', era: '2026', endpoint: { kind: 'http', url: proxy.url }, frontPid: proxy.pid },
    ];
    // The light load checks each 2026 answer for resultType "complete" and each echo for its text.
    const scenario = { label: 'tiny', workers: 3, warmupCalls: 3, calls: 30, maxDurationMs: 5_000, rounds: 2 };
    const { results } = await compareTargets({ phase: 'echo', load: lightLoad, operation: 'echo', scenario, targets, progress: () => {} });
    for (const { target, result } of results) expect([target.name, result.errors, result.firstError]).toEqual([target.name, 0, undefined]);

    for (const url of [floor.url, proxy.url]) {
      const envelope = { 'io.modelcontextprotocol/protocolVersion': MODERN_VERSION, 'io.modelcontextprotocol/clientCapabilities': {} };
      const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: ECHO_ARGUMENTS, _meta: envelope } });
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/call' };
      const answered = await fetch(url, { method: 'POST', headers: { ...headers, 'mcp-name': 'echo' }, body });
      // node:http says how long it keeps an idle connection; the raw reader says nothing of it.
      expect(answered.headers.get('keep-alive')).toBe(front === 'raw' ? null : 'timeout=5');
      const { result } = (await answered.json()) as { result: Record<string, unknown> };
      expect(result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: `Echo: ${ECHO_ARGUMENTS.message}` }] });
      expect(Object.keys(result._meta as object)).toEqual(['io.modelcontextprotocol/serverInfo']);
      const refused = await fetch(url, { method: 'POST', headers: { ...headers, 'mcp-name': 'not-echo' }, body });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: { code: number } }).error.code).toBe(-32020);
    }
  }, 60_000);

  it('gives a front a full GC after its warm-up, and reads its GC pauses and allocation around each of its rounds (front-hooks.mjs over IPC)', async () => {
    // The reference proxy: a real front with the hooks preloaded, in front of server-everything,
    // started as the bench starts it: without --expose-gc.
    const proxy = await startMinProxy();
    const target: Target = { name: 'min-proxy', label: 'min-proxy', tool: 'echo', era: '2025', endpoint: { kind: 'http', url: proxy.url }, frontPid: proxy.pid, control: proxy.control };
    const before = await proxy.control.gcTotals();
    // Enough calls for several young-generation collections in a fresh process.
    const scenario = { label: 'gc', workers: 5, warmupCalls: 20, calls: 1_000, maxDurationMs: 20_000, rounds: 2 };
    const { results } = await compareTargets({ phase: 'echo', load: lightLoad, operation: 'echo', scenario, targets: [target], progress: () => {} });
    const after = await proxy.control.gcTotals();
    const { result } = results[0]!;
    expect(result.errors).toBe(0);
    expect(result.frontGc?.ms).toBeGreaterThan(0);
    expect(result.frontGc?.major).toBeGreaterThanOrEqual(0);
    expect(figuresOf(result).frontGc?.msPerCall).toBeCloseTo(result.frontGc!.ms / result.samples.length, 9);
    // Counted across the collections of the rounds: a call (its request, its parse, its answer)
    // allocates a few KB at the least, and a proxy this small far less than 200 KB.
    const allocatedPerCall = figuresOf(result).frontGc!.allocatedBytesPerCall;
    expect(allocatedPerCall).toBeGreaterThan(2_000);
    expect(allocatedPerCall).toBeLessThan(200_000);
    expect(after.allocatedBytes - before.allocatedBytes).toBeGreaterThanOrEqual(result.frontGc!.allocatedBytes);
    // The full collection after 20 warm-up calls, outside the measured rounds.
    expect(after.major - before.major - result.frontGc!.major).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it('lists 50 tools from the scale fixture, and one more after bump', async () => {
    const peer = await manyTools(50);
    const before = (await peer.request('tools/list', {})) as { tools: unknown[] };
    await peer.request('tools/call', { name: 'bump', arguments: {} });
    const after = (await peer.request('tools/list', {})) as { tools: unknown[] };
    expect([before.tools.length, after.tools.length]).toEqual([50, 51]);
  });
});
