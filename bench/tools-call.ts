// `npm run bench`: what the gateway costs on the hot path, tools/call, measured against calling the
// same upstream directly. server-everything runs over Streamable HTTP on 127.0.0.1, the built gateway
// CLI in front of it, each in its own process; this process is the load. Gateway and direct phases
// alternate (gateway first in one round, direct first in the next), so drift of the machine (thermal,
// other work, JIT warming up) falls on both alike. A benchmark, not a test: it prints figures and
// fails only when calls fail.
//
//   npm run bench                                  the full run (well under 2 minutes)
//   npm run bench -- --only concurrent             one scenario: sequential | concurrent
//   npm run bench -- --cpu-prof --only concurrent  profile the gateway (node --cpu-prof) and summarise it
//   npm run bench -- --gateway-cli /tmp/dist-b/cli.js --gateway-node-arg=--import=/tmp/patch.mjs
//                                                  try another build of the gateway, or node options for it alone
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { summariseProfile } from './cpu-profile.js';
import { cpuTimeMs } from './cpu-time.js';
import {
  closeAll,
  combine,
  connect,
  connectMany,
  runConcurrent,
  runSequential,
  type BenchClient,
  type MeasuredProcess,
  type PhaseResult,
} from './load.js';
import { startEverything, startGateway, stopAll } from './processes.js';
import { comparisonTable, machineLines, type Comparison } from './report.js';

const SEQUENTIAL = { warmupCalls: 200, calls: 2_000 };
// A fixed number of calls, bounded in time so that a slow gateway still finishes in ~2 minutes.
const CONCURRENT = { workers: 50, warmupCalls: 1_000, calls: 10_000, maxDurationMs: 30_000 };
// Each target's calls are split over this many rounds, alternating which target goes first.
const ROUNDS = 2;

interface Target {
  readonly name: 'gateway' | 'direct';
  readonly url: string;
  /** The echo tool's name as this target exposes it. */
  readonly tool: string;
}

/** The two targets and the processes behind them (whose CPU time is read per phase). */
interface Setup {
  readonly gateway: Target;
  readonly direct: Target;
  readonly pids: { readonly gateway: number; readonly upstream: number | undefined };
}

type Scenario = 'sequential' | 'concurrent';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      'cpu-prof': { type: 'boolean', default: false },
      'gateway-cli': { type: 'string' },
      'gateway-node-arg': { type: 'string', multiple: true },
    },
  });
  const only = values.only;
  if (only !== undefined && only !== 'sequential' && only !== 'concurrent') {
    throw new Error(`--only: expected sequential or concurrent, got "${only}"`);
  }
  const startedAt = new Date();
  const scenarios: Scenario[] = only === undefined ? ['sequential', 'concurrent'] : [only];
  const cpuProfileDir = values['cpu-prof'] ? mkdtempSync(join(tmpdir(), 'switchboard-cpuprof-')) : undefined;

  progress('starting server-everything (Streamable HTTP) and the gateway (node dist/cli.js)');
  const upstream = await startEverything();
  const gateway = await startGateway(upstream.url, {
    ...(cpuProfileDir !== undefined && { cpuProfileDir }),
    ...(values['gateway-cli'] !== undefined && { cli: values['gateway-cli'] }),
    ...(values['gateway-node-arg'] !== undefined && { nodeArgs: values['gateway-node-arg'] }),
  });
  progress(`server-everything (pid ${upstream.pid ?? '?'}) at ${upstream.url}; gateway (pid ${gateway.pid}) at ${gateway.url}`);
  const setup: Setup = {
    gateway: { name: 'gateway', url: gateway.url, tool: 'everything__echo' },
    direct: { name: 'direct', url: upstream.url, tool: 'echo' },
    pids: { gateway: gateway.pid, upstream: upstream.pid },
  };

  const comparisons: Comparison[] = [];
  if (scenarios.includes('sequential')) comparisons.push(await sequential(setup));
  if (scenarios.includes('concurrent')) comparisons.push(await concurrent(setup));

  process.stdout.write(
    [
      '',
      'Switchboard bench: tools/call of echo, gateway (everything__echo) vs direct (echo) to server-everything',
      ...machineLines(startedAt),
      `clients: official v2 client (@modelcontextprotocol/client); sequential ${SEQUENTIAL.calls} calls on 1 session ` +
        `after ${SEQUENTIAL.warmupCalls} warm-up; concurrent ${CONCURRENT.workers} workers on ${CONCURRENT.workers} sessions, ` +
        `${CONCURRENT.calls} calls (at most ${CONCURRENT.maxDurationMs / 1000} s) after ${CONCURRENT.warmupCalls} warm-up; ` +
        `${ROUNDS} alternating rounds per target`,
      ...(cpuProfileDir !== undefined ? ['note:    the gateway ran under --cpu-prof: its figures are slowed by the profiler'] : []),
      ...(values['gateway-cli'] !== undefined ? [`note:    gateway CLI ${values['gateway-cli']}`] : []),
      ...(values['gateway-node-arg'] !== undefined ? [`note:    gateway node options ${values['gateway-node-arg'].join(' ')}`] : []),
      '',
      comparisonTable(comparisons),
      '',
      'CPU ms/call: CPU time (user+sys) the process used during the phase / calls; the upstream is server-everything.',
      '',
    ].join('\n'),
  );

  const failed = comparisons.flatMap(({ scenario, gateway: g, direct: d }) => [
    ...(g.errors > 0 ? [`${scenario} gateway: ${g.errors} failed calls, first: ${g.firstError}`] : []),
    ...(d.errors > 0 ? [`${scenario} direct: ${d.errors} failed calls, first: ${d.firstError}`] : []),
  ]);
  failed.forEach((line) => process.stderr.write(`bench: ${line}\n`));

  await stopAll();
  if (cpuProfileDir !== undefined) {
    const [profile] = readdirSync(cpuProfileDir).filter((file) => file.endsWith('.cpuprofile'));
    if (profile === undefined) throw new Error(`the gateway wrote no profile into ${cpuProfileDir}`);
    process.stdout.write(`\n${summariseProfile(join(cpuProfileDir, profile))}\n`);
  }
  return failed.length === 0 ? 0 : 1;
}

async function sequential(setup: Setup): Promise<Comparison> {
  const clients = new Map<Target, BenchClient>();
  try {
    for (const target of [setup.gateway, setup.direct]) {
      const client = await connect(target.url, target.tool);
      clients.set(target, client);
      progress(`sequential ${target.name}: warm-up, ${SEQUENTIAL.warmupCalls} calls`);
      await runSequential(client, SEQUENTIAL.warmupCalls);
    }
    const rounds = await alternate(setup, (target, round) => {
      progress(`sequential ${target.name}: round ${round + 1} of ${ROUNDS}`);
      return runSequential(clients.get(target)!, SEQUENTIAL.calls / ROUNDS);
    });
    return { scenario: 'sequential', ...rounds };
  } finally {
    await closeAll([...clients.values()]);
  }
}

async function concurrent(setup: Setup): Promise<Comparison> {
  const sessions = new Map<Target, BenchClient[]>();
  try {
    for (const target of [setup.gateway, setup.direct]) {
      progress(`concurrent ${target.name}: opening ${CONCURRENT.workers} sessions, warm-up ${CONCURRENT.warmupCalls} calls`);
      const clients = await connectMany(target.url, target.tool, CONCURRENT.workers);
      sessions.set(target, clients);
      await runConcurrent(clients, CONCURRENT.warmupCalls, CONCURRENT.maxDurationMs);
    }
    const rounds = await alternate(setup, (target, round) => {
      progress(`concurrent ${target.name}: round ${round + 1} of ${ROUNDS}`);
      return runConcurrent(sessions.get(target)!, CONCURRENT.calls / ROUNDS, CONCURRENT.maxDurationMs / ROUNDS);
    });
    return { scenario: `${CONCURRENT.workers} concurrent`, ...rounds };
  } finally {
    await closeAll([...sessions.values()].flat());
  }
}

/** ROUNDS rounds of each target, gateway first in even rounds and direct first in odd ones (ABBA). */
async function alternate(
  setup: Setup,
  run: (target: Target, round: number) => Promise<PhaseResult>,
): Promise<{ gateway: PhaseResult; direct: PhaseResult }> {
  const results = { gateway: [] as PhaseResult[], direct: [] as PhaseResult[] };
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0 ? [setup.gateway, setup.direct] : [setup.direct, setup.gateway];
    for (const target of order) results[target.name].push(await measured(setup, target, () => run(target, round)));
  }
  return { gateway: combine(results.gateway), direct: combine(results.direct) };
}

/**
 * The phase's result, with the CPU time of the processes that serve it: the upstream always, the
 * gateway when it is the target (it idles otherwise). CPU per call is the figure that survives a
 * busy machine, and the upstream's is the yardstick: what one MCP server spends on the same call.
 */
async function measured(setup: Setup, target: Target, run: () => Promise<PhaseResult>): Promise<PhaseResult> {
  const pids: [MeasuredProcess, number | undefined][] = [['upstream', setup.pids.upstream]];
  if (target.name === 'gateway') pids.push(['gateway', setup.pids.gateway]);
  const before = pids.map(([, pid]) => (pid === undefined ? undefined : cpuTimeMs(pid)));
  const result = await run();
  const cpuMs: Partial<Record<MeasuredProcess, number>> = {};
  pids.forEach(([name, pid], i) => {
    const start = before[i];
    const end = pid === undefined ? undefined : cpuTimeMs(pid);
    if (start !== undefined && end !== undefined) cpuMs[name] = end - start;
  });
  return { ...result, cpuMs };
}

function progress(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

// Ctrl-C: stop the gateway and the upstream before leaving, then exit as an interrupted program does.
process.once('SIGINT', () => {
  progress('interrupted; stopping the gateway and the upstream');
  void stopAll().finally(() => process.exit(130));
});

main().then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    await stopAll();
    process.exitCode = 1;
  },
);
