// `npm run bench:ab -- --baseline DIR`: two builds of the gateway side by side, each in front of its
// own server-everything over stdio, their rounds interleaved (A B, B A, ...) so that the machine's
// drift falls on both alike. On a shared machine, two runs of the full bench minutes apart differ
// by more than most single changes do; within one run, CPU per call of two fronts compares fairly.
// The baseline is a directory holding another build's `dist/` (a worktree of the commit before,
// built), or this checkout with --node-arg to weigh a Node option.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { lightLoad } from './light-load.js';
import type { PhaseResult } from './load.js';
import { startGateway, stopAll, removeRunDir, EVERYTHING_MAIN } from './processes.js';
import { comparisonTable } from './report.js';
import { compareTargets } from './scenarios.js';
import { BENCH_STATE_SECRET } from './stack.js';
import { TARGET_SPECS, type Era, type Target } from './targets.js';

const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    era: { type: 'string', default: '2025' },
    rounds: { type: 'string', default: '8' },
    workers: { type: 'string', default: '50' },
    'log-level': { type: 'string', default: 'info' },
    /** Node options for this build's gateway only: to weigh a V8 flag against the same build without it. */
    'node-arg': { type: 'string', multiple: true },
  },
});
if (values.baseline === undefined) throw new Error('--baseline DIR: a checkout whose dist/ holds the build to compare with (. for this one, with --node-arg)');
const baselineCli = join(resolve(values.baseline), 'dist/cli.js');
if (!existsSync(baselineCli)) throw new Error(`no ${baselineCli}: build the baseline first (npm run build in that checkout)`);
const era = values.era as Era;
if (era !== '2025' && era !== '2026') throw new Error(`--era: 2025 or 2026, got ${values.era}`);
const rounds = Number(values.rounds);
const workers = Number(values.workers);

const everything = { command: process.execPath, args: [EVERYTHING_MAIN, 'stdio'] };
const spec = TARGET_SPECS[era === '2025' ? 'gw-stdio-2025' : 'gw-stdio-2026'];
const progress = (message: string): void => void process.stderr.write(`bench:ab: ${message}\n`);

try {
  const targets: Target[] = [];
  for (const [label, cli] of [['baseline', baselineCli], ['this build', undefined]] as const) {
    const front = await startGateway({
      label: label.replace(' ', '-'),
      config: { server: { host: '127.0.0.1', shutdownTimeoutSeconds: 5 }, mrtr: { stateSecret: BENCH_STATE_SECRET }, mcpServers: { everything } },
      logLevel: values['log-level'],
      ...(cli !== undefined && { cli }),
      ...(cli === undefined && values['node-arg'] !== undefined && { nodeArgs: values['node-arg'] }),
    });
    const upstreamPid = front.upstreamPids('server-everything')[0];
    targets.push({ ...spec, name: label, label, endpoint: { kind: 'http', url: front.url }, frontPid: front.pid, ...(upstreamPid !== undefined && { upstreamPid }) });
  }
  const comparison = await compareTargets({
    phase: 'echo',
    load: lightLoad,
    operation: 'echo',
    scenario: { label: `${workers} concurrent ${era}`, workers, warmupCalls: 1_000, calls: rounds * 3_000, maxDurationMs: rounds * 4_000, rounds },
    targets,
    progress,
  });
  process.stdout.write(`${comparisonTable([comparison])}\n`);
  const [base, current] = comparison.results.map(({ result }) => result);
  const cpu = (result: PhaseResult | undefined): number | undefined => {
    const front = result?.cpuMs?.front;
    return front === undefined || result === undefined ? undefined : front / result.samples.length;
  };
  const [baseCpu, currentCpu] = [cpu(base), cpu(current)];
  if (baseCpu !== undefined && currentCpu !== undefined) {
    process.stdout.write(`front CPU per call: baseline ${baseCpu.toFixed(3)} ms, this build ${currentCpu.toFixed(3)} ms (${((currentCpu / baseCpu - 1) * 100).toFixed(1)}%)\n`);
  }
} finally {
  await stopAll();
  removeRunDir();
}
