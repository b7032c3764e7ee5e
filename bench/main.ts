// `npm run bench`: what the gateway costs on the hot path, tools/call, in each protocol era, measured
// against calling the same upstream directly. server-everything runs over Streamable HTTP on
// 127.0.0.1, the built gateway CLI in front of it, each in its own process; this process is the load.
// Three targets: the gateway with a 2025 session, the gateway with stateless 2026-07-28 requests,
// and the upstream direct (targets.ts). Two loads: the official SDK client, and a light HTTP client
// that leaves the cores to the processes under test (sdk-load.ts, http-load.ts). Within a scenario
// the targets take turns round by round, the order reversed every round, so drift of the machine
// (thermal, other work, JIT warming up) falls on all alike and the ratios come from one run.
// A benchmark, not a test: it prints figures, writes them as JSON, and fails only when calls fail.
//
//   npm run bench                                  the full run (1.5 to 2.5 minutes, bounded below 3)
//   npm run bench -- --only concurrent             one scenario: sequential | concurrent
//   npm run bench -- --load http                   one load: sdk | http
//   npm run bench -- --target gateway-2026         only some targets (repeatable): gateway-2025 | gateway-2026 | direct
//   npm run bench -- --json /tmp/run-a.json        where the JSON goes (default bench/results/latest.json)
//   npm run bench -- --cpu-prof --load http --target gateway-2026
//                                                  profile the gateway (node --cpu-prof) on one path and summarise it
//   npm run bench -- --gateway-cli /tmp/dist-b/cli.js --gateway-node-arg=--import=/tmp/patch.mjs
//                                                  try another build of the gateway, or node options for it alone
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { summariseProfile } from './cpu-profile.js';
import type { Comparison } from './figures.js';
import { httpLoad } from './http-load.js';
import type { LoadGenerator } from './load.js';
import { machine, sourceRevision } from './machine.js';
import { startEverything, startGateway, stopAll } from './processes.js';
import { comparisonTable, failureLines, machineLines } from './report.js';
import { writeResults } from './results-json.js';
import { compareTargets, ROUNDS, SCENARIOS, type ScenarioName } from './scenarios.js';
import { sdkLoad } from './sdk-load.js';
import { isTargetName, targetsFor, TARGET_NAMES, type TargetName } from './targets.js';

const LOADS: readonly LoadGenerator[] = [sdkLoad, httpLoad];
const DEFAULT_JSON = fileURLToPath(new URL('./results/latest.json', import.meta.url));
// A last guard over the bounds of each phase (scenarios.ts: at most ~2 minutes of phases): whatever
// hangs, the run ends within 3 minutes, build included, and takes its processes with it.
const RUN_DEADLINE_MS = 150_000;

interface Options {
  readonly scenarios: readonly ScenarioName[];
  readonly loads: readonly LoadGenerator[];
  readonly targets: readonly TargetName[];
  readonly jsonPath: string;
  readonly cpuProfile: boolean;
  readonly gatewayCli: string | undefined;
  readonly gatewayNodeArgs: readonly string[] | undefined;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      load: { type: 'string' },
      target: { type: 'string', multiple: true },
      json: { type: 'string' },
      'cpu-prof': { type: 'boolean', default: false },
      'gateway-cli': { type: 'string' },
      'gateway-node-arg': { type: 'string', multiple: true },
    },
  });
  const { only, load } = values;
  if (only !== undefined && only !== 'sequential' && only !== 'concurrent') throw new Error(`--only: expected sequential or concurrent, got "${only}"`);
  const loads = load === undefined ? LOADS : LOADS.filter((generator) => generator.name === load);
  if (loads.length === 0) throw new Error(`--load: expected ${LOADS.map((generator) => generator.name).join(' or ')}, got "${load}"`);
  const targets = values.target ?? [...TARGET_NAMES];
  const unknown = targets.find((name) => !isTargetName(name));
  if (unknown !== undefined) throw new Error(`--target: expected one of ${TARGET_NAMES.join(', ')}, got "${unknown}"`);
  return {
    scenarios: only === undefined ? ['sequential', 'concurrent'] : [only],
    loads,
    // In the table's order, whatever the order on the command line.
    targets: TARGET_NAMES.filter((name) => targets.includes(name)),
    jsonPath: values.json ?? DEFAULT_JSON,
    cpuProfile: values['cpu-prof'],
    gatewayCli: values['gateway-cli'],
    gatewayNodeArgs: values['gateway-node-arg'],
  };
}

async function main(): Promise<number> {
  const opts = options();
  const startedAt = new Date();
  const cpuProfileDir = opts.cpuProfile ? mkdtempSync(join(tmpdir(), 'switchboard-cpuprof-')) : undefined;

  progress('starting server-everything (Streamable HTTP) and the gateway (node dist/cli.js)');
  const upstream = await startEverything();
  const gateway = await startGateway(upstream.url, {
    ...(cpuProfileDir !== undefined && { cpuProfileDir }),
    ...(opts.gatewayCli !== undefined && { cli: opts.gatewayCli }),
    ...(opts.gatewayNodeArgs !== undefined && { nodeArgs: opts.gatewayNodeArgs }),
  });
  progress(`server-everything (pid ${upstream.pid ?? '?'}) at ${upstream.url}; gateway (pid ${gateway.pid}) at ${gateway.url}`);
  const allTargets = targetsFor(gateway.url, upstream.url);
  const targets = opts.targets.map((name) => allTargets[name]);
  const pids = { gateway: gateway.pid, upstream: upstream.pid };

  const comparisons: Comparison[] = [];
  for (const load of opts.loads) {
    for (const scenario of opts.scenarios) comparisons.push(await compareTargets(load, SCENARIOS[scenario], targets, pids, progress));
  }

  const host = machine();
  const { sequential, concurrent } = SCENARIOS;
  const notes = [
    ...(cpuProfileDir !== undefined ? ['the gateway ran under --cpu-prof: its figures are slowed by the profiler'] : []),
    ...(opts.gatewayCli !== undefined ? [`gateway CLI ${opts.gatewayCli}`] : []),
    ...(opts.gatewayNodeArgs !== undefined ? [`gateway node options ${opts.gatewayNodeArgs.join(' ')}`] : []),
  ];
  process.stdout.write(
    [
      '',
      'Switchboard bench: tools/call of echo through the gateway (everything__echo), 2025 session and 2026 stateless, vs direct (echo) to server-everything',
      ...machineLines(startedAt, host),
      `loads:   sdk = official v2 client (@modelcontextprotocol/client, pinned to 2026-07-28 for the 2026 target); ` +
        `http = undici Pool with keep-alive, one connection per caller`,
      `work:    sequential ${sequential.calls} calls on 1 caller after ${sequential.warmupCalls} warm-up (at most ${sequential.maxDurationMs / 1000} s); ` +
        `concurrent ${concurrent.workers} callers (2025: one session each), ${concurrent.calls} calls after ${concurrent.warmupCalls} warm-up ` +
        `(at most ${concurrent.maxDurationMs / 1000} s); per target, in ${ROUNDS} rounds whose order alternates`,
      ...notes.map((note) => `note:    ${note}`),
      '',
      comparisonTable(comparisons),
      '',
      'CPU ms/call: CPU time (user+sys) each process used during the phase / calls; upstream = server-everything, load = this process.',
      'Ratio rows: of/to for p50, p99, calls/s; on the 2026/2025 row also the gateway CPU per call.',
      '',
    ].join('\n'),
  );

  writeResults(opts.jsonPath, {
    startedAt,
    machine: host,
    source: sourceRevision(),
    settings: { scenarios: SCENARIOS, rounds: ROUNDS, loads: opts.loads.map((load) => load.name), targets: opts.targets, notes },
    comparisons,
  });
  progress(`figures written to ${opts.jsonPath}`);

  const failed = failureLines(comparisons);
  failed.forEach((line) => process.stderr.write(`bench: ${line}\n`));

  await stopAll();
  if (cpuProfileDir !== undefined) {
    const [profile] = readdirSync(cpuProfileDir).filter((file) => file.endsWith('.cpuprofile'));
    if (profile === undefined) throw new Error(`the gateway wrote no profile into ${cpuProfileDir}`);
    process.stdout.write(`\n${summariseProfile(join(cpuProfileDir, profile))}\n`);
  }
  return failed.length === 0 ? 0 : 1;
}

function progress(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

// Ctrl-C: stop the gateway and the upstream before leaving, then exit as an interrupted program does.
process.once('SIGINT', () => {
  progress('interrupted; stopping the gateway and the upstream');
  void stopAll().finally(() => process.exit(130));
});

const watchdog = setTimeout(() => {
  progress(`the run took more than ${RUN_DEADLINE_MS / 1000} s; stopping`);
  void stopAll().finally(() => process.exit(1));
}, RUN_DEADLINE_MS);
watchdog.unref();

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
