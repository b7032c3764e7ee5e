// One scenario under one load, for several targets: open each target's callers, warm each up and
// give its front a full GC, then rounds in which every target runs its share of the calls in turn,
// the order reversed every round (A B C, C B A, ...), so drift of the machine falls on all targets
// alike and every ratio between two rows comes from the same stretch of time. Every phase is
// bounded in calls and in time, and so is every warm-up.
import { cpuTimeMs, machineBusyMs } from './cpu-time.js';
import type { Comparison } from './figures.js';
import { combine, runWorkers, type ClientGroup, type LoadGenerator, type MeasuredProcess, type PhaseResult } from './load.js';
import type { Operation } from './operations.js';
import type { Target } from './targets.js';

export interface Scenario {
  /** e.g. "sequential", "50 concurrent". */
  readonly label: string;
  /** Callers in flight at once; each 2025 HTTP caller is its own session. */
  readonly workers: number;
  readonly warmupCalls: number;
  /** Time bound of each target's warm-up; default WARMUP_MAX_MS. */
  readonly warmupMaxMs?: number;
  /** Calls per target, over all rounds. */
  readonly calls: number;
  /** Time bound per target, over all rounds: a slow target gets fewer calls rather than a longer run. */
  readonly maxDurationMs: number;
  readonly rounds: number;
}

/** Something done around each measured round of a target: the profiler, when asked for. */
export interface RoundHooks {
  before?(target: Target): Promise<void>;
  /** `result`: the round's own figures (bench:ab compares builds round by round). */
  after(target: Target, result: PhaseResult): Promise<void>;
}

// The warm-up is for the JIT and the connection pools; a few seconds is plenty, and it must not stall the run.
const DEFAULT_WARMUP_MAX_MS = 2_000;

export interface ComparisonRun {
  /** Names the phase in the table and the JSON, e.g. "echo". */
  readonly phase: string;
  readonly load: LoadGenerator;
  readonly operation: Operation;
  readonly scenario: Scenario;
  readonly targets: readonly Target[];
  readonly hooks?: RoundHooks;
  readonly progress: (message: string) => void;
}

export async function compareTargets({ phase, load, operation, scenario, targets, hooks, progress }: ComparisonRun): Promise<Comparison> {
  const groups = new Map<Target, ClientGroup>();
  const title = `${phase} ${load.name} ${scenario.label}`;
  try {
    for (const target of targets) {
      progress(`${title} ${target.name}: opening ${scenario.workers} callers, warm-up ${scenario.warmupCalls} calls`);
      const group = await load.open(target, scenario.workers, operation);
      groups.set(target, group);
      const warmUp = () => runWorkers(group.clients, scenario.warmupCalls, scenario.warmupMaxMs ?? DEFAULT_WARMUP_MAX_MS);
      await warmUp();
      // A process's first full collection can change how much its young collections promote from
      // then on, for as long as it runs (README.md here, "GC regimes"); one comes within minutes of
      // steady traffic. Every front has had one before it is first measured, so that a run measures
      // what a deployed process costs, and not, by chance, a fresh one. Then the warm-up again: the
      // collection throws away some of the optimised code and caches the first one built.
      if (await target.control?.settle()) await warmUp();
    }
    const rounds = new Map<Target, PhaseResult[]>(targets.map((target) => [target, []]));
    for (let round = 0; round < scenario.rounds; round += 1) {
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      progress(`${title}: round ${round + 1} of ${scenario.rounds}`);
      for (const target of order) {
        const clients = groups.get(target)!.clients;
        await hooks?.before?.(target);
        const result = await measured(target, () => runWorkers(clients, scenario.calls / scenario.rounds, scenario.maxDurationMs / scenario.rounds));
        rounds.get(target)!.push(result);
        await hooks?.after(target, result);
      }
    }
    return { phase, load: load.name, scenario: scenario.label, results: targets.map((target) => ({ target: { name: target.name, label: target.label }, result: combine(rounds.get(target)!) })) };
  } finally {
    await Promise.all([...groups.values()].map((group) => group.close().catch(() => {})));
  }
}

/**
 * The phase's result, with the CPU time of the processes that served it: the front (when there is
 * one), the upstream, and this process, whose share says how much of the two cores the load itself
 * took; and the machine's, whose share says how much of them any process could use. CPU per call
 * is the figure that survives a busy machine, and the upstream's is the yardstick: what one MCP
 * server spends on the same call.
 */
async function measured(target: Target, run: () => Promise<PhaseResult>): Promise<PhaseResult> {
  // Asked outside the CPU readings: the question costs the front a little CPU of its own.
  const gcBefore = await target.control?.gcTotals().catch(() => undefined);
  const read: [MeasuredProcess, () => number | undefined][] = [
    ['upstream', () => (target.upstreamPid === undefined ? undefined : cpuTimeMs(target.upstreamPid))],
    ['load', () => loadCpuMs()],
    ['machine', machineBusyMs],
  ];
  if (target.frontPid !== undefined) read.push(['front', () => cpuTimeMs(target.frontPid!)]);
  const before = read.map(([, now]) => now());
  const result = await run();
  const cpuMs: Partial<Record<MeasuredProcess, number>> = {};
  read.forEach(([name, now], i) => {
    const start = before[i];
    const end = now();
    if (start !== undefined && end !== undefined) cpuMs[name] = end - start;
  });
  const gcAfter = gcBefore && (await target.control?.gcTotals().catch(() => undefined));
  const frontGc =
    gcBefore && gcAfter ? { ms: gcAfter.ms - gcBefore.ms, major: gcAfter.major - gcBefore.major, allocatedBytes: gcAfter.allocatedBytes - gcBefore.allocatedBytes } : undefined;
  return { ...result, cpuMs, ...(frontGc !== undefined && { frontGc }) };
}

/** This process's user + system CPU time in ms (all its threads, as /proc counts the others). */
function loadCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
