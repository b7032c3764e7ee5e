// Scale rows, part one: tools/list through the gateway with 1, 10 and 100 upstreams of 50 tools
// each (test/fixtures/many-tools.mjs over stdio). The merged, filtered view should be built once
// per catalogue change, so a list with 100 upstreams should cost the gateway about what one with 1
// does. The answers are not the same size: one upstream's list is its 50 tools, and 10 or 100
// upstreams' first page is 100 tools (the page size set here), twice the bytes for the client to
// read, which its calls/s include (verdicts.ts judges the gateway's CPU per call too). The three
// gateways run side by side so their rows are measured in interleaved rounds like every other
// comparison; 100 stdio servers start on two cores once, with a bound, and the time that took is
// reported.
import { fileURLToPath } from 'node:url';

import type { Comparison } from './figures.js';
import { lightLoad } from './light-load.js';
import { startGateway, type RunningFront } from './processes.js';
import { compareTargets, type Scenario } from './scenarios.js';
import type { GatewaySettings } from './stack.js';
import type { Target } from './targets.js';

export const MANY_TOOLS = fileURLToPath(new URL('../test/fixtures/many-tools.mjs', import.meta.url));
export const UPSTREAM_COUNTS = [1, 10, 100] as const;
const TOOLS_PER_UPSTREAM = 50;
const PAGE_SIZE = 100;
/** 100 servers, each probed (server/discover) and then connected, on two cores. */
const READY_TIMEOUT_MS = 120_000;

export const TOOLS_LIST_SCENARIOS: readonly Scenario[] = [
  { label: 'sequential', workers: 1, warmupCalls: 50, calls: 600, maxDurationMs: 3_000, rounds: 2 },
  { label: '50 concurrent', workers: 50, warmupCalls: 200, calls: 3_000, maxDurationMs: 4_000, rounds: 2 },
];

export interface ScaleStartup {
  readonly upstreams: number;
  readonly tools: number;
  /** From spawning the gateway to /readyz saying every upstream is ready. */
  readonly startupMs: number;
}

export interface ScaleResult {
  readonly startups: readonly ScaleStartup[];
  readonly comparisons: readonly Comparison[];
}

export async function scaleToolsList(gateway: GatewaySettings, progress: (message: string) => void): Promise<ScaleResult> {
  const fronts: RunningFront[] = [];
  const startups: ScaleStartup[] = [];
  const targets: Target[] = [];
  try {
    for (const count of UPSTREAM_COUNTS) {
      progress(`tools/list: starting a gateway with ${count} stdio upstreams of ${TOOLS_PER_UPSTREAM} tools`);
      const started = performance.now();
      const front = await startGateway({ label: `scale-${count}`, config: configWith(count), readyTimeoutMs: READY_TIMEOUT_MS, ...gateway });
      const startupMs = performance.now() - started;
      fronts.push(front);
      startups.push({ upstreams: count, tools: count * TOOLS_PER_UPSTREAM, startupMs });
      progress(`tools/list: ${count} upstreams ready in ${(startupMs / 1000).toFixed(1)} s`);
      targets.push({
        name: `tools-list-${count}`,
        label: `gw ${count} upstream${count === 1 ? '' : 's'} x ${TOOLS_PER_UPSTREAM} tools`,
        tool: '',
        era: '2025',
        endpoint: { kind: 'http', url: front.url },
        frontPid: front.pid,
        control: front.control,
      });
    }
    const comparisons: Comparison[] = [];
    for (const scenario of TOOLS_LIST_SCENARIOS) {
      comparisons.push(await compareTargets({ phase: 'tools/list', load: lightLoad, operation: 'tools/list', scenario, targets, progress }));
    }
    return { startups, comparisons };
  } finally {
    // 111 processes are not left to compete with the phases after this one.
    await Promise.all(fronts.map((front) => front.stop()));
  }
}

function configWith(count: number): object {
  const mcpServers: Record<string, object> = {};
  for (let i = 1; i <= count; i += 1) {
    mcpServers[`s${String(i).padStart(3, '0')}`] = { command: process.execPath, args: [MANY_TOOLS], env: { TOOL_COUNT: String(TOOLS_PER_UPSTREAM) } };
  }
  // Pages of 100, as before lists became one page by default: 100 upstreams' whole list would be
  // 5,000 tools, a row about the client's parsing, not comparable with the records.
  return { server: { host: '127.0.0.1', shutdownTimeoutSeconds: 5 }, lists: { pageSize: PAGE_SIZE }, mcpServers };
}
