// The run's figures as JSON (bench/results/latest.json unless --json names another file), so that a
// later run, another build or another machine can be compared with this one by a script rather
// than by reading two tables. Raw samples are left out: the summary is what gets compared, and
// a file of 40,000 latencies per run would be noise in a diff.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

import { figuresOf, ratioOf, RATIOS, type Comparison, type Figures, type Ratio } from './figures.js';
import type { Machine } from './machine.js';

export interface RunRecord {
  readonly startedAt: Date;
  readonly machine: Machine;
  readonly source: { commit: string; dirty: boolean } | undefined;
  /** The workload and anything unusual about the run (a profiler, another build), as free-form settings. */
  readonly settings: Readonly<Record<string, unknown>>;
  readonly comparisons: readonly Comparison[];
}

/** Bumped when a field changes meaning, so a comparing script can refuse what it does not understand. */
const FORMAT = 'switchboard-bench/1';

export function writeResults(path: string, run: RunRecord): void {
  const document = {
    format: FORMAT,
    startedAt: run.startedAt.toISOString(),
    machine: run.machine,
    source: run.source ?? null,
    settings: run.settings,
    comparisons: run.comparisons.map(({ load, scenario, results }) => {
      const targets: Record<string, Figures & { label: string; firstError?: string }> = {};
      for (const { target, result } of results) {
        targets[target.name] = { label: target.label, ...figuresOf(result), ...(result.firstError !== undefined && { firstError: result.firstError }) };
      }
      const ratios: Record<string, Ratio> = {};
      for (const { label, of, to } of RATIOS) {
        const [a, b] = [targets[of], targets[to]];
        if (a !== undefined && b !== undefined) ratios[label] = ratioOf(a, b);
      }
      return { load, scenario, targets, ratios };
    }),
  };
  mkdirSync(dirname(path), { recursive: true });
  // Microseconds are below what a run can tell apart; more digits would only make two files harder to diff.
  const rounded = (_key: string, value: unknown): unknown => (typeof value === 'number' && !Number.isInteger(value) ? Number(value.toFixed(3)) : value);
  writeFileSync(path, `${JSON.stringify(document, rounded, 2)}\n`);
}
