// Running the official MCP conformance suite's CLI (@modelcontextprotocol/conformance) as a child
// process under a Node that can run it (see node-for-conformance.ts), and reading the results it
// writes: one directory per scenario, `server-<scenario>-<timestamp>/checks.json`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { spawnTracked, stopChild } from './child-process.js';

export type CheckStatus = 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';

export interface ConformanceCheck {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly status: CheckStatus;
  readonly errorMessage?: string;
  // The details are whatever each scenario chose to record; the tests know which.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- untyped JSON from the suite
  readonly details?: Record<string, any>;
}

export interface SuiteRun {
  readonly exitCode: number | null;
  /** What the CLI printed, stdout and stderr interleaved. */
  readonly output: string;
  /** Scenario name -> its checks. A scenario that wrote no results is absent. */
  readonly checks: ReadonlyMap<string, readonly ConformanceCheck[]>;
}

export interface SuiteOptions {
  /** The Node binary to run the CLI with. */
  readonly node: string;
  /** The CLI's entry point (`…/dist/index.js` of the installed package). */
  readonly cli: string;
  /** The MCP endpoint under test. */
  readonly url: string;
  /** The CLI's working directory; results go to `results/<label>` inside it. */
  readonly workDir: string;
  readonly label: string;
  /** What to run: `['--requirements', '2026-07-28']`, `['--scenario', name]`, ... */
  readonly selection: readonly string[];
  readonly timeoutMs: number;
}

/** Runs the suite's `server` command; resolves with its exit code, output and results. */
export async function runConformanceSuite(options: SuiteOptions): Promise<SuiteRun> {
  const { node, cli, url, workDir, label, selection, timeoutMs } = options;
  const outputDir = join(workDir, 'results', label);
  const child = spawnTracked(node, [cli, 'server', '--url', url, ...selection, '--output-dir', outputDir], {
    cwd: workDir,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => {
      void stopChild(child);
      reject(new Error(`the conformance suite (${selection.join(' ')}) against ${url} did not finish within ${timeoutMs} ms; its output:\n${output}`));
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
  return { exitCode, output, checks: readChecks(outputDir, output) };
}

/** The CLI's closing summary (one line per scenario), or the end of its output if it has none. */
export function suiteSummary(run: SuiteRun): string {
  const start = run.output.lastIndexOf('=== SUMMARY ===');
  return start === -1 ? run.output.slice(-4_000) : run.output.slice(start);
}

/**
 * results/<label>/server-<scenario>-<ISO timestamp with - for : and .>/checks.json. A scenario that
 * threw (the CLI prints "Failed to run scenario <name>: <error>") leaves its directory without
 * checks.json; it gets one FAILURE check carrying that line, never an empty, vacuously passing list.
 */
function readChecks(outputDir: string, output: string): Map<string, ConformanceCheck[]> {
  const checks = new Map<string, ConformanceCheck[]>();
  if (!existsSync(outputDir)) return checks;
  for (const entry of readdirSync(outputDir)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/.exec(entry)?.[1];
    if (scenario === undefined) continue;
    const file = join(outputDir, entry, 'checks.json');
    checks.set(scenario, existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ConformanceCheck[]) : [didNotFinish(scenario, output)]);
  }
  return checks;
}

function didNotFinish(scenario: string, output: string): ConformanceCheck {
  const prefix = `Failed to run scenario ${scenario}: `;
  const line = output.split('\n').find((candidate) => candidate.startsWith(prefix));
  return {
    id: 'scenario-did-not-finish',
    name: 'ScenarioDidNotFinish',
    description: 'The scenario threw before it recorded its checks',
    status: 'FAILURE',
    errorMessage: line?.slice(prefix.length) ?? 'no checks.json, and no reason in the output',
  };
}
