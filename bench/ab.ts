// `npm run bench:ab -- --baseline DIR`: two builds of the gateway side by side, each in front of its
// own server-everything over stdio (or, with --upstream modern, the tests' 2026-07-28 fixture; with
// --upstream modern-http, that fixture over Streamable HTTP, one server for both gateways),
// their rounds interleaved (A B, B A, ...) so that the machine's
// drift falls on both alike. On a shared machine, two runs of the full bench minutes apart differ
// by more than most single changes do; within one run, CPU per call of two fronts compares fairly.
// The baseline is a directory holding another build's `dist/` (a worktree of the commit before,
// built), or this checkout with --node-arg to weigh a Node option, or with --node to weigh another
// Node (the image's runtime against the machine's). Each gateway is warmed up and has a full GC,
// as in the bench (a fresh one spends several times its steady cost per call in its first
// thousands of calls, and its first full collection changes its GC for good: README.md here,
// "GC regimes"), and each pair's verdict is the median of its rounds' paired ratios, which one slow
// stretch of the machine moves less than it moves the totals. Pairs (--pairs, fresh processes
// each): the verdict is the median over pairs, every other pair started in the other order.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { lightLoad } from './light-load.js';
import type { PhaseResult } from './load.js';
import { startGateway, startModernOverHttp, stopAll, stopAllOnSignals, removeRunDir, EVERYTHING_PATTERN, EVERYTHING_STDIO, MODERN_PATTERN, MODERN_STDIO } from './processes.js';
import { figuresOf } from './figures.js';
import { comparisonTable } from './report.js';
import { compareTargets } from './scenarios.js';
import { BENCH_STATE_SECRET } from './stack.js';
import { TARGET_SPECS, type Era, type Target } from './targets.js';

const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    era: { type: 'string', default: '2025' },
    /** everything (server-everything, 2025), modern (a 2026-07-28 server over stdio; 2026 requests) or modern-http (the same over HTTP). */
    upstream: { type: 'string', default: 'everything' },
    rounds: { type: 'string', default: '8' },
    pairs: { type: 'string', default: '6' },
    workers: { type: 'string', default: '50' },
    'log-level': { type: 'string', default: 'info' },
    /** Node options for this build's gateway only: to weigh a V8 flag against the same build without it. */
    'node-arg': { type: 'string', multiple: true },
    /** Another Node binary for this build's gateway only; the baseline runs on the bench's own. */
    node: { type: 'string' },
  },
});
if (values.baseline === undefined) throw new Error('--baseline DIR: a checkout whose dist/ holds the build to compare with (. for this one, with --node-arg or --node)');
if (values.node !== undefined && !existsSync(values.node)) throw new Error(`--node: no such file ${values.node}`);
const baselineCli = join(resolve(values.baseline), 'dist/cli.js');
if (!existsSync(baselineCli)) throw new Error(`no ${baselineCli}: build the baseline first (npm run build in that checkout)`);
const era = values.era as Era;
if (era !== '2025' && era !== '2026') throw new Error(`--era: 2025 or 2026, got ${values.era}`);
const rounds = Number(values.rounds);
const workers = Number(values.workers);
const pairs = Number(values.pairs);
if (!Number.isInteger(pairs) || pairs < 1) throw new Error(`--pairs: a whole number of gateway pairs, at least 1, got ${values.pairs}`);

const modernHttp = values.upstream === 'modern-http';
const modern = values.upstream === 'modern' || modernHttp;
if (!modern && values.upstream !== 'everything') throw new Error(`--upstream: everything, modern or modern-http, got ${values.upstream}`);
if (modern && era !== '2026') throw new Error(`--upstream ${values.upstream}: its requests are 2026 ones (--era 2026)`);
/** The gateways' upstreams: an HTTP one is started per pair (stopAll ends it with the pair). */
const upstreamsOfPair = async (): Promise<Record<string, object>> => {
  if (modernHttp) return { modern: { url: (await startModernOverHttp()).url, transport: 'streamable-http' } };
  return modern ? { modern: MODERN_STDIO } : { everything: EVERYTHING_STDIO };
};
const upstreamPattern = modern ? MODERN_PATTERN : EVERYTHING_PATTERN;
const spec = TARGET_SPECS[modern ? 'gw-modern-2026' : era === '2025' ? 'gw-stdio-2025' : 'gw-stdio-2026'];
const progress = (message: string): void => void process.stderr.write(`bench:ab: ${message}\n`);
stopAllOnSignals(progress);

try {
  const pairRatios: number[] = [];
  for (let pair = 0; pair < pairs; pair += 1) {
    // Every other pair starts this build first: what start order does falls on both builds alike.
    const builds = [['baseline', baselineCli], ['this build', undefined]] as const;
    const ratio = await comparePair(pair % 2 === 0 ? builds : [builds[1], builds[0]], `pair ${pair + 1} of ${pairs}`);
    if (ratio !== undefined) pairRatios.push(ratio);
    await stopAll();
  }
  if (pairRatios.length > 1) {
    process.stdout.write(`front CPU per call, this build vs baseline, median of ${pairRatios.length} pairs: ${percent(median(pairRatios))} (each pair: ${pairRatios.map(percent).join(', ')})\n`);
  }
} finally {
  await stopAll();
  removeRunDir();
}

/** One pair of fresh gateways, rounds interleaved; the median of the rounds' ratios (this build / baseline). */
async function comparePair(builds: readonly (readonly [string, string | undefined])[], title: string): Promise<number | undefined> {
  const targets: Target[] = [];
  const upstreams = await upstreamsOfPair();
  for (const [label, cli] of builds) {
    const nodeArgs = cli === undefined ? (values['node-arg'] ?? []) : [];
    const front = await startGateway({
      label: label.replace(' ', '-'),
      config: { server: { host: '127.0.0.1', shutdownTimeoutSeconds: 5 }, mrtr: { stateSecret: BENCH_STATE_SECRET }, mcpServers: upstreams },
      logLevel: values['log-level'],
      ...(cli !== undefined && { cli }),
      ...(nodeArgs.length > 0 && { nodeArgs }),
      ...(cli === undefined && values.node !== undefined && { node: values.node }),
    });
    const upstreamPid = front.upstreamPids(upstreamPattern)[0];
    targets.push({ ...spec, name: label, label, endpoint: { kind: 'http', url: front.url }, frontPid: front.pid, control: front.control, ...(upstreamPid !== undefined && { upstreamPid }) });
  }
  // Each round's front CPU per call, by target, in round order.
  const perRound = new Map<string, number[]>(targets.map((target) => [target.name, []]));
  const comparison = await compareTargets({
    phase: 'echo',
    load: lightLoad,
    operation: 'echo',
    scenario: { label: `${workers} concurrent ${era}`, workers, warmupCalls: 5_000, warmupMaxMs: 4_000, calls: rounds * 3_000, maxDurationMs: rounds * 4_000, rounds },
    targets,
    hooks: {
      after: (target, result) => {
        const perCall = cpu(result);
        if (perCall !== undefined) perRound.get(target.name)!.push(perCall);
        return Promise.resolve();
      },
    },
    progress: (message) => progress(`${title}: ${message}`),
  });
  process.stdout.write(`${title}, ${builds[0]![0]} started first\n${comparisonTable([comparison])}\n`);
  const result = (name: string) => comparison.results.find(({ target }) => target.name === name)?.result;
  const [baseCpu, currentCpu] = [cpu(result('baseline')), cpu(result('this build'))];
  if (baseCpu !== undefined && currentCpu !== undefined) {
    process.stdout.write(`front CPU per call: baseline ${baseCpu.toFixed(3)} ms, this build ${currentCpu.toFixed(3)} ms (${percent(currentCpu / baseCpu)})\n`);
  }
  // What each build allocated per call: unlike CPU, the same from pair to pair, so one pair says it.
  const [baseAllocated, currentAllocated] = [allocated(result('baseline')), allocated(result('this build'))];
  if (baseAllocated !== undefined && currentAllocated !== undefined) {
    process.stdout.write(
      `front allocated per call: baseline ${(baseAllocated / 1024).toFixed(1)} KB, this build ${(currentAllocated / 1024).toFixed(1)} KB (${percent(currentAllocated / baseAllocated)})\n`,
    );
  }
  const [baseRounds, currentRounds] = [perRound.get('baseline')!, perRound.get('this build')!];
  const ratios = currentRounds.flatMap((perCall, round) => (baseRounds[round] === undefined ? [] : [perCall / baseRounds[round]]));
  if (ratios.length === 0) return undefined;
  const sorted = [...ratios].sort((a, b) => a - b);
  const quartiles = `${percent(sorted[Math.floor(sorted.length / 4)]!)} to ${percent(sorted[Math.floor((sorted.length * 3) / 4)]!)}`;
  process.stdout.write(`front CPU per call, this build vs baseline, median of ${ratios.length} rounds: ${percent(median(ratios))} (middle half of the rounds: ${quartiles})\n\n`);
  return median(ratios);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function cpu(result: PhaseResult | undefined): number | undefined {
  const front = result?.cpuMs?.front;
  return front === undefined || result === undefined || result.samples.length === 0 ? undefined : front / result.samples.length;
}

function allocated(result: PhaseResult | undefined): number | undefined {
  return result === undefined ? undefined : figuresOf(result).frontGc?.allocatedBytesPerCall;
}

function percent(ratio: number): string {
  const change = (ratio - 1) * 100;
  return `${change > 0 ? '+' : ''}${change.toFixed(1)}%`;
}
