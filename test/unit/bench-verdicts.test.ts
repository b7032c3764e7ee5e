// The bench's pure parts: the verdicts it prints, and the profile summary. The bench
// itself is not run in CI (it takes minutes and measures time); these keep its arithmetic honest.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { summariseProfiles } from '../../bench/cpu-profile.js';
import { figuresOf, type Comparison } from '../../bench/figures.js';
import type { PhaseResult } from '../../bench/load.js';
import { parseOptions } from '../../bench/options.js';
import { calibrationLines, comparisonTable, eraLines, pipelineLines, rawFrontLines, tracingLines } from '../../bench/report.js';
import { verdicts } from '../../bench/verdicts.js';

/** A phase result of `calls` calls of `latencyMs` each, taking `elapsedMs` in all. */
function result(calls: number, latencyMs: number, elapsedMs: number): PhaseResult {
  return { samples: Array.from({ length: calls }, () => latencyMs), errors: 0, elapsedMs };
}

function comparison(phase: string, scenario: string, results: Record<string, PhaseResult>): Comparison {
  return { phase, load: 'light', scenario, results: Object.entries(results).map(([name, r]) => ({ target: { name, label: name }, result: r })) };
}

describe('the bench verdicts', () => {
  const comparisons = [
    // 10,000 rps floor, 6,000 rps gateway, 1,000 rps mcp-proxy.
    comparison('echo', '50 concurrent', { floor: result(1000, 5, 100), 'gw-stdio-2025': result(600, 8, 100), 'mcp-proxy': result(100, 50, 100) }),
    comparison('echo', 'sequential', { floor: result(100, 0.2, 20), 'gw-stdio-2025': result(100, 0.6, 60) }),
  ];
  const byWhat = new Map(verdicts({ comparisons, sessions: [] }).map((v) => [v.what, v]));

  it('passes a throughput ratio that meets its target', () => {
    const verdict = byWhat.get('gw-stdio-2025 vs floor: throughput at 50 in flight')!;
    expect(verdict.raw).toBeCloseTo(0.6);
    expect(verdict.pass).toBe(true);
    expect(byWhat.get('gw-stdio-2025 vs mcp-proxy: throughput at 50 in flight')!.pass).toBe(true);
  });

  it('fails a latency above the floor by more than its margin', () => {
    const verdict = byWhat.get('gw-stdio-2025 minus floor: echo sequential p50')!;
    expect(verdict.raw).toBeCloseTo(0.4);
    expect(verdict.pass).toBe(false);
  });

  it('sets each era of the floor and of the reference proxy against the other, as (c) does the gateway', () => {
    const eras = [comparison('echo', '50 concurrent', { floor: result(1000, 5, 100), 'floor-2026': result(970, 5, 100), 'min-proxy': result(500, 5, 100), 'min-proxy-2026': result(510, 5, 100) })];
    const byEra = new Map(verdicts({ comparisons: eras, sessions: [] }).map((v) => [v.what, v]));
    expect(byEra.get('floor-2026 vs floor: throughput at 50 in flight')).toMatchObject({ id: 'ref', goal: '>= 100%', value: '97.0%', pass: false });
    expect(byEra.get('min-proxy-2026 vs min-proxy: throughput at 50 in flight')).toMatchObject({ id: 'ref', value: '102.0%', pass: true });
  });

  it('judges tools/list with 100 upstreams against 1 by the client\'s calls/s and by the gateway\'s own CPU per call', () => {
    // The 100-upstream answer is a page of 100 tools against one upstream's 50: the client's calls/s
    // fall by more than the gateway's CPU per call rises.
    const lists = [
      comparison('tools/list', '50 concurrent', {
        'tools-list-1': { ...result(600, 8, 100), cpuMs: { front: 90 } },
        'tools-list-100': { ...result(350, 14, 100), cpuMs: { front: 63 } },
      }),
    ];
    const byList = new Map(verdicts({ comparisons: lists, sessions: [] }).map((v) => [v.what, v]));
    expect(byList.get('tools/list, 1 upstream vs 100: throughput at 50 in flight')).toMatchObject({ id: 'e', value: '1.71x', pass: false });
    expect(byList.get('tools/list, 100 upstreams vs 1: gateway CPU per call at 50 in flight')).toMatchObject({ id: 'e', goal: '<= 1.5x', value: '1.20x', pass: true });
  });

  it('says n/a, not FAIL, for a figure the run did not take', () => {
    const verdict = byWhat.get('gw-http-2025 vs http-direct: throughput at 50 in flight')!;
    expect(verdict.value).toBe('n/a');
    expect(verdict.pass).toBeUndefined();
  });
});

describe('the tracing overhead lines', () => {
  it('compare the traced gateway with the same gateway untraced, scenario by scenario', () => {
    const plain = { ...result(600, 8, 100), cpuMs: { front: 120 } };
    const traced = { ...result(500, 9, 100), cpuMs: { front: 150 } };
    const lines = tracingLines([comparison('echo', '50 concurrent', { 'gw-stdio-2025': plain, 'gw-stdio-2025-traced': traced }), comparison('echo', 'sequential', { 'gw-stdio-2025': plain })]);
    expect(lines).toEqual(['tracing on vs off, echo light 50 concurrent: front CPU/call 0.20 -> 0.30 ms (+50.0%), calls/s -16.7%, p50 8.00 -> 9.00 ms']);
  });

  it('turn the busy reference proxy into a price per microsecond of front CPU, and each gateway\'s gap into microseconds', () => {
    // 1,000 calls in 100 ms each; the busy twin spends 10 us more CPU per call and answers 10% fewer.
    const reference = { ...result(1000, 5, 100), cpuMs: { front: 30 } };
    const busy = { ...result(900, 5, 100), cpuMs: { front: 36 } };
    const gateway = { ...result(800, 6, 100), cpuMs: { front: 40 } };
    // The 2026 reference answers 950 calls; the 2026 gateway's 760 are 20% fewer than that.
    const modernReference = { ...result(950, 5, 100), cpuMs: { front: 30 } };
    const modernGateway = { ...result(760, 6, 100), cpuMs: { front: 40 } };
    const lines = calibrationLines([
      comparison('echo', '50 concurrent', {
        'min-proxy': reference,
        'min-proxy-2026': modernReference,
        'min-proxy-busy': busy,
        'gw-stdio-2025': gateway,
        'gw-stdio-2026': modernGateway,
        floor: result(2000, 2, 100),
      }),
      comparison('echo', 'sequential', { 'min-proxy': reference }),
    ]);
    expect(lines).toEqual([
      'front CPU calibration, echo light 50 concurrent: the reference proxy with 10.0 us more front CPU per call (0.03 -> 0.04 ms) answered -10.0% calls/s, 1.00% per us',
      '  each gateway against the reference, and what that is worth at this rate in front CPU per call: ' +
        'gw-stdio-2025 -20.0% calls/s vs min-proxy, ~20.0 us; gw-stdio-2026 -20.0% calls/s vs min-proxy-2026, ~20.0 us',
    ]);
  });

  it('set the floor and the reference proxy on node:http beside their raw socket twins', () => {
    // The floor's CPU is its own process's (the upstream column); the reference's is its front's.
    const lines = rawFrontLines([
      comparison('echo', '50 concurrent', {
        floor: { ...result(2000, 2, 100), cpuMs: { upstream: 60 } },
        'floor-raw': { ...result(2200, 2, 100), cpuMs: { upstream: 33 } },
        'min-proxy': { ...result(900, 5, 100), cpuMs: { front: 36 } },
        'min-proxy-raw': { ...result(1100, 5, 100), cpuMs: { front: 24.2 } },
      }),
      comparison('echo', 'sequential', { floor: result(100, 0.2, 20) }),
    ]);
    expect(lines).toEqual([
      'node:http against a raw socket front, echo light 50 concurrent: the floor 30.0 -> 15.0 us of CPU per call, +10.0% calls/s; ' +
        "the reference proxy 40.0 -> 22.0 us of front CPU per call, 45.0% -> 55.0% of the floor's calls/s",
    ]);
  });

  it('leave the on-request targets out of a run that does not name them', () => {
    expect(parseOptions([], 'x.json').targets).not.toContain('gw-stdio-2025-traced');
    expect(parseOptions([], 'x.json').targets).not.toContain('min-proxy-busy');
    expect(parseOptions([], 'x.json').targets).not.toContain('floor-raw');
    expect(parseOptions([], 'x.json').targets).not.toContain('min-proxy-raw');
    expect(parseOptions(['--target', 'gw-stdio-2025,gw-stdio-2025-traced'], 'x.json').targets).toEqual(['gw-stdio-2025', 'gw-stdio-2025-traced']);
  });
});

describe('the machine\'s busy cores', () => {
  it('are its busy CPU time over the phase\'s wall time, printed beside the calls/s', () => {
    // 1,000 calls in 100 ms, while the machine's CPUs were busy 160 ms in all: 1.6 cores.
    const phase = { ...result(1000, 5, 100), cpuMs: { front: 50, upstream: 30, load: 45, machine: 160 } };
    expect(figuresOf(phase).coresBusy).toBeCloseTo(1.6);
    expect(figuresOf(phase).cpuMsPerCall.machine).toBeCloseTo(0.16);
    const [header, , row] = comparisonTable([comparison('echo', '50 concurrent', { 'gw-stdio-2025': phase })]).split('\n');
    const cell = (title: string): string => row!.slice(0, header!.indexOf(title) + title.length).trim().split(/\s+/).at(-1)!;
    expect(cell('calls/s')).toBe('10000');
    expect(cell('cores busy')).toBe('1.60');
  });

  it('split a proxy\'s share of the floor\'s calls/s into the cores it kept busy and the CPU it spent per call', () => {
    // The floor: 2,000 calls in 100 ms on 1.8 cores (90 us of the machine's CPU per call); the
    // gateway: 1,000 calls on 1.5 cores (150 us per call), 50% = 83.3% x 60.0%.
    const lines = pipelineLines([
      comparison('echo', '50 concurrent', {
        floor: { ...result(2000, 2, 100), cpuMs: { upstream: 80, load: 90, machine: 180 } },
        'gw-stdio-2025': { ...result(1000, 5, 100), cpuMs: { front: 70, upstream: 35, load: 40, machine: 150 } },
        'mcp-proxy': { ...result(200, 25, 100), cpuMs: { front: 100, machine: 150 } },
      }),
      comparison('tools/list', '50 concurrent', { 'tools-list-1': { ...result(500, 5, 100), cpuMs: { machine: 150 } } }),
      // One call at a time the machine's 10 ms ticks are too coarse for a split: not printed.
      comparison('echo', 'sequential', {
        floor: { ...result(100, 0.2, 20), cpuMs: { machine: 20 } },
        'gw-stdio-2025': { ...result(100, 0.5, 50), cpuMs: { machine: 50 } },
      }),
    ]);
    expect(lines).toEqual([
      "share of the floor's calls/s, echo light 50 concurrent, as busy cores x machine CPU per call:",
      '  gw-stdio-2025 50.0% = cores 1.50 of 1.80 (83.3%) x CPU 90 of 150 us per call (60.0%)',
    ]);
  });

  it('split a front\'s 2026 calls/s against its 2025 calls/s the same way, with what 2026 adds per call by process', () => {
    // The gateway: 1,000 calls in 100 ms on 1.5 cores in 2025 (150 us per call), 900 on 1.44 in
    // 2026 (160 us): 90% = 96% x 93.75%, of which the front +2 us, server-everything +1, the load +5.
    const lines = eraLines([
      comparison('echo', '50 concurrent', {
        floor: { ...result(2000, 2, 100), cpuMs: { upstream: 80, load: 90, machine: 180 } },
        'floor-2026': { ...result(1800, 2, 100), cpuMs: { upstream: 81, load: 90, machine: 180 } },
        'gw-stdio-2025': { ...result(1000, 5, 100), cpuMs: { front: 50, upstream: 30, load: 40, machine: 150 } },
        'gw-stdio-2026': { ...result(900, 5, 100), cpuMs: { front: 46.8, upstream: 27.9, load: 40.5, machine: 144 } },
        // One era alone: no pair, no line.
        'gw-redis-2025': { ...result(1000, 5, 100), cpuMs: { front: 50, machine: 150 } },
      }),
      comparison('echo', 'sequential', {
        'gw-stdio-2025': { ...result(100, 0.5, 50), cpuMs: { machine: 50 } },
        'gw-stdio-2026': { ...result(100, 0.5, 50), cpuMs: { machine: 50 } },
      }),
    ]);
    expect(lines).toEqual([
      '2026 against 2025 calls/s, echo light 50 concurrent, as busy cores x machine CPU per call (and what 2026 adds per call, by process):',
      '  floor-2026 vs floor 90.0% = cores 100.0% x CPU 90 of 100 us per call (90.0%; upstream +5.0 us, load +5.0 us)',
      '  gw-stdio-2026 vs gw-stdio-2025 90.0% = cores 96.0% x CPU 150 of 160 us per call (93.8%; front +2.0 us, upstream +1.0 us, load +5.0 us)',
    ]);
  });

  it('are left blank where the machine\'s CPU time could not be read', () => {
    const phase = { ...result(1000, 5, 100), cpuMs: { front: 50 } };
    expect(figuresOf(phase).coresBusy).toBeUndefined();
    const [header, , row] = comparisonTable([comparison('echo', '50 concurrent', { 'gw-stdio-2025': phase })]).split('\n');
    // The cell under "cores busy" holds spaces only; the front's CPU follows it.
    expect(row!.slice(header!.indexOf('cores busy'), header!.indexOf('cores busy') + 'cores busy'.length).trim()).toBe('');
  });
});

describe('the profile summary', () => {
  it('charges native code to the package that called it', () => {
    // root -> sonic-boom write -> fs write (built-in) -> writeString (native): 3 samples of 1 ms in writeString.
    const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({ id, callFrame: { functionName, url, lineNumber: 0 }, children });
    const profile = {
      nodes: [
        frame(1, '(root)', '', [2]),
        frame(2, 'write', 'file:///x/node_modules/sonic-boom/index.js', [3]),
        frame(3, 'writeSync', 'node:fs', [4]),
        frame(4, 'writeString', ''),
      ],
      samples: [4, 4, 4, 4],
      timeDeltas: [0, 1000, 1000, 1000],
    };
    const file = join(mkdtempSync(join(tmpdir(), 'bench-profile-')), 'a.cpuprofile');
    writeFileSync(file, JSON.stringify(profile));
    const summary = summariseProfiles([file]);
    expect(summary).toMatch(/100\.0%\s+3 ms\s+native code/);
    expect(summary).toMatch(/100\.0%\s+3 ms\s+sonic-boom/);
    expect(summary).toContain('writeString  (native, for sonic-boom)');
    expect(summary).toContain('4 samples');
  });
});
