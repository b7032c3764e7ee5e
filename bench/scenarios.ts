// One scenario under one load, for several targets: open each target's callers, warm each up, then
// rounds in which every target runs its share of the calls in turn, the order reversed every round
// (A B C, C B A, ...), so drift of the machine falls on all targets alike. Every phase is bounded
// in calls and in time, and so is every warm-up.
import { cpuTimeMs } from './cpu-time.js';
import type { Comparison } from './figures.js';
import { combine, runWorkers, type ClientGroup, type LoadGenerator, type MeasuredProcess, type PhaseResult } from './load.js';
import type { Target } from './targets.js';

export type ScenarioName = 'sequential' | 'concurrent';

export interface Scenario {
  readonly label: string;
  /** Callers in flight at once; each 2025 caller is its own session. */
  readonly workers: number;
  readonly warmupCalls: number;
  /** Calls per target, over all rounds. */
  readonly calls: number;
  /** Time bound per target, over all rounds: a slow target gets fewer calls rather than a longer run. */
  readonly maxDurationMs: number;
}

// Sized so that a full run (2 loads x 2 scenarios x 3 targets) takes about a minute and a half
// on 2 idle cores, and stays well under 3 minutes on a busy machine where every phase runs into
// its time bound: 2 x 3 x (6 + 9) s of phases plus 12 warm-ups of at most 2 s is 114 s.
export const SCENARIOS: Readonly<Record<ScenarioName, Scenario>> = {
  sequential: { label: 'sequential', workers: 1, warmupCalls: 150, calls: 1_000, maxDurationMs: 6_000 },
  concurrent: { label: '50 concurrent', workers: 50, warmupCalls: 600, calls: 6_000, maxDurationMs: 9_000 },
};

// More rounds than targets, so that each target runs early and late in the scenario alike.
export const ROUNDS = 4;
// The warm-up is for the JIT and the connection pools; a few seconds is plenty, and it must not stall the run.
const WARMUP_MAX_MS = 2_000;

/** The processes whose CPU time is read per phase. */
export interface Pids {
  readonly gateway: number;
  readonly upstream: number | undefined;
}

export async function compareTargets(
  load: LoadGenerator,
  scenario: Scenario,
  targets: readonly Target[],
  pids: Pids,
  progress: (message: string) => void,
): Promise<Comparison> {
  const groups = new Map<Target, ClientGroup>();
  try {
    for (const target of targets) {
      progress(`${load.name} ${scenario.label} ${target.name}: opening ${scenario.workers} callers, warm-up ${scenario.warmupCalls} calls`);
      const group = await load.open(target, scenario.workers);
      groups.set(target, group);
      await runWorkers(group.clients, scenario.warmupCalls, WARMUP_MAX_MS);
    }
    const rounds = new Map<Target, PhaseResult[]>(targets.map((target) => [target, []]));
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      progress(`${load.name} ${scenario.label}: round ${round + 1} of ${ROUNDS} (${order.map((target) => target.name).join(', ')})`);
      for (const target of order) {
        const clients = groups.get(target)!.clients;
        rounds.get(target)!.push(await measured(pids, target, () => runWorkers(clients, scenario.calls / ROUNDS, scenario.maxDurationMs / ROUNDS)));
      }
    }
    return { load: load.name, scenario: scenario.label, results: targets.map((target) => ({ target, result: combine(rounds.get(target)!) })) };
  } finally {
    await Promise.all([...groups.values()].map((group) => group.close().catch(() => {})));
  }
}

/**
 * The phase's result, with the CPU time of the processes that served it: the upstream always, the
 * gateway when it is in the path (it idles otherwise), and this process, whose share says how much
 * of the two cores the load itself took. CPU per call is the figure that survives a busy machine,
 * and the upstream's is the yardstick: what one MCP server spends on the same call.
 */
async function measured(pids: Pids, target: Target, run: () => Promise<PhaseResult>): Promise<PhaseResult> {
  const read: [MeasuredProcess, () => number | undefined][] = [
    ['upstream', () => (pids.upstream === undefined ? undefined : cpuTimeMs(pids.upstream))],
    ['load', () => loadCpuMs()],
  ];
  if (target.viaGateway) read.push(['gateway', () => cpuTimeMs(pids.gateway)]);
  const before = read.map(([, now]) => now());
  const result = await run();
  const cpuMs: Partial<Record<MeasuredProcess, number>> = {};
  read.forEach(([name, now], i) => {
    const start = before[i];
    const end = now();
    if (start !== undefined && end !== undefined) cpuMs[name] = end - start;
  });
  return { ...result, cpuMs };
}

/** This process's user + system CPU time in ms (all its threads, as /proc counts the others). */
function loadCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
