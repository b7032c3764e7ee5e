// The load phases: what is called, under which load, in which scenarios, on which targets. Sized so
// that the three together take about two and a half minutes on 2 idle cores, and every phase is
// bounded in time as well as in calls, so a busy machine gets fewer calls, not a longer run.
import type { Comparison } from './figures.js';
import { lightLoad } from './light-load.js';
import type { LoadGenerator } from './load.js';
import type { Operation } from './operations.js';
import type { Phase, ScenarioName } from './options.js';
import { compareTargets, type RoundHooks, type Scenario } from './scenarios.js';
import { sdkV1Load, sdkV2Load } from './sdk-load.js';
import { TARGET_NAMES, type Target, type TargetName } from './targets.js';

interface LoadPhase {
  readonly operation: Operation;
  readonly loads: readonly LoadGenerator[];
  readonly scenarios: Readonly<Partial<Record<ScenarioName, Scenario>>>;
  /** The targets this phase calls, when the run has them. */
  readonly targets: readonly TargetName[];
}

// 4 rounds for the judged phase: more rounds than it takes for each target to run early and late alike.
// 8 at 50 in flight, where one target's turn lasts a fraction of a second: this machine's speed
// moves by up to 2x within seconds, and more, shorter turns spread those swings over every target
// alike (docs/decisions/0016-how-the-bench-measures.md).
// The sequential echo comes first in a run, on cold processes, so its warm-up is long enough for V8
// to have optimised the gateway's path: one caller at a time, a fresh gateway answered its first
// 2,000 calls about twice as slowly as the next 6,000, so a short warm-up measured the JIT's work,
// not the gateway's steady state. The same holds at 50 in flight, where a fresh gateway's CPU per
// call fell by three quarters over its first rounds of 1,500 calls, so a target run alone was
// measured mostly on its way up. Every target gets the same warm-up.
export const LOAD_PHASES: Readonly<Partial<Record<Phase, LoadPhase>>> = {
  echo: {
    operation: 'echo',
    loads: [lightLoad],
    scenarios: {
      sequential: { label: 'sequential', workers: 1, warmupCalls: 3_000, warmupMaxMs: 5_000, calls: 1_000, maxDurationMs: 3_000, rounds: 4 },
      concurrent: { label: '50 concurrent', workers: 50, warmupCalls: 5_000, warmupMaxMs: 4_000, calls: 12_000, maxDurationMs: 10_000, rounds: 8 },
    },
    // Every target: the echo is what each of them answers (targets.ts).
    targets: TARGET_NAMES,
  },
  // Answered by the front alone: what a call costs the front before any upstream is involved.
  ping: {
    operation: 'ping',
    loads: [lightLoad],
    scenarios: { sequential: { label: 'sequential', workers: 1, warmupCalls: 100, calls: 1_000, maxDurationMs: 1_500, rounds: 2 } },
    targets: ['floor', 'stdio-direct', 'gw-stdio-2025', 'gw-stdio-2025-isolation', 'gw-redis-2025', 'mcp-proxy', 'min-proxy'],
  },
  // What deployed clients see; fewer calls, since the SDK's own cost dominates on two cores.
  sdk: {
    operation: 'echo',
    loads: [sdkV2Load, sdkV1Load],
    scenarios: {
      sequential: { label: 'sequential', workers: 1, warmupCalls: 30, calls: 300, maxDurationMs: 1_500, rounds: 2 },
      concurrent: { label: '50 concurrent', workers: 50, warmupCalls: 100, calls: 1_500, maxDurationMs: 2_500, rounds: 2 },
    },
    targets: ['gw-stdio-2025', 'gw-stdio-2026', 'mcp-proxy', 'http-direct', 'gw-http-2025'],
  },
};

/** The targets the chosen load phases need, in the table's order. */
export function targetsNeeded(phases: readonly Phase[], chosen: readonly TargetName[]): TargetName[] {
  const wanted = new Set(phases.flatMap((phase) => LOAD_PHASES[phase]?.targets ?? []));
  return chosen.filter((name) => wanted.has(name));
}

export async function runLoadPhase(
  phase: Phase,
  running: readonly Target[],
  scenarios: readonly ScenarioName[],
  hooks: RoundHooks | undefined,
  progress: (message: string) => void,
): Promise<Comparison[]> {
  const definition = LOAD_PHASES[phase];
  if (definition === undefined) return [];
  const comparisons: Comparison[] = [];
  for (const load of definition.loads) {
    const targets = running.filter((target) => (definition.targets as readonly string[]).includes(target.name) && load.supports(target));
    if (targets.length === 0) continue;
    for (const name of scenarios) {
      const scenario = definition.scenarios[name];
      if (scenario === undefined) continue;
      comparisons.push(await compareTargets({ phase: definition.operation, load, operation: definition.operation, scenario, targets, ...(hooks !== undefined && { hooks }), progress }));
    }
  }
  return comparisons;
}
