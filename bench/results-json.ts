// The run's figures as JSON (bench/results/latest.json unless --json names another file), so that a
// later run, another build or another machine can be compared with this one (compare.ts, or any
// script) rather than by reading two tables. Raw samples are left out: the summary is what gets
// compared, and 100,000 latencies per run would be noise in a diff.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

import { figuresOf, type Comparison, type Figures } from './figures.js';
import type { SessionsResult } from './idle-sessions.js';
import type { Machine } from './machine.js';
import type { ScaleStartup } from './scale-tools-list.js';
import type { Verdict } from './verdicts.js';

export interface RunRecord {
  readonly startedAt: Date;
  readonly machine: Machine;
  readonly source: { commit: string; dirty: boolean } | undefined;
  /** The workload and anything unusual about the run (a profiler, another build), as free-form settings. */
  readonly settings: Readonly<Record<string, unknown>>;
  readonly comparisons: readonly Comparison[];
  readonly scaleStartups: readonly ScaleStartup[];
  readonly sessions: readonly SessionsResult[];
  readonly verdicts: readonly Verdict[];
}

/** Bumped when a field changes meaning, so a comparing script can refuse what it does not understand. */
export const FORMAT = 'switchboard-bench/2';

export interface ComparisonDocument {
  readonly phase: string;
  readonly load: string;
  readonly scenario: string;
  readonly targets: Record<string, Figures & { label: string; firstError?: string }>;
}

/** The file's shape, as compare.ts reads it back. */
export interface ResultsDocument {
  readonly format: string;
  readonly startedAt: string;
  readonly machine: Machine;
  readonly source: { commit: string; dirty: boolean } | null;
  readonly settings: Readonly<Record<string, unknown>>;
  readonly comparisons: readonly ComparisonDocument[];
  readonly scaleStartups: readonly ScaleStartup[];
  readonly sessions: readonly SessionsResult[];
  readonly verdicts: readonly Omit<Verdict, 'value'>[];
}

export function toDocument(run: RunRecord): ResultsDocument {
  return {
    format: FORMAT,
    startedAt: run.startedAt.toISOString(),
    machine: run.machine,
    source: run.source ?? null,
    settings: run.settings,
    comparisons: run.comparisons.map(({ phase, load, scenario, results }) => {
      const targets: ComparisonDocument['targets'] = {};
      for (const { target, result } of results) {
        targets[target.name] = { label: target.label, ...figuresOf(result), ...(result.firstError !== undefined && { firstError: result.firstError }) };
      }
      return { phase, load, scenario, targets };
    }),
    scaleStartups: run.scaleStartups,
    sessions: run.sessions,
    verdicts: run.verdicts.map(({ id, what, goal, raw, pass }) => ({ id, what, goal, raw, pass })),
  };
}

export function writeResults(path: string, document: ResultsDocument): void {
  mkdirSync(dirname(path), { recursive: true });
  // Microseconds are below what a run can tell apart; more digits would only make two files harder to diff.
  const rounded = (_key: string, value: unknown): unknown => (typeof value === 'number' && !Number.isInteger(value) ? Number(value.toFixed(3)) : value);
  writeFileSync(path, `${JSON.stringify(document, rounded, 2)}\n`);
}

export function readResults(path: string): ResultsDocument {
  const document = JSON.parse(readFileSync(path, 'utf8')) as ResultsDocument;
  if (document.format !== FORMAT) throw new Error(`${path}: format ${String(document.format)}, this bench reads ${FORMAT}`);
  return document;
}
