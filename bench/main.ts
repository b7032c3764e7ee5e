// `npm run bench`: the project's performance record. One process tree on one machine, so every
// ratio comes from one run: this process is the load; the floor, server-everything (stdio and
// Streamable HTTP), the built gateway CLI (memory and Redis stores), mcp-proxy and redis-server
// each run in their own process. Phases (options.ts says how to run a subset):
//   echo      tools/call of echo on every target, sequential and 50 in flight, the light load,
//             targets interleaved round by round (targets.ts, load-phases.ts)
//   ping      answered by the front alone, against the floor's ping
//   sdk       the official v2 and v1 clients on a few targets: what deployed clients see
//   scale     tools/list with 1, 10 and 100 upstreams of 50 tools (scale-tools-list.ts)
//   sessions  10,000 idle sessions per store, and a list_changed fan-out to them (idle-sessions.ts)
// Then the verdicts: the ratios docs/performance.md names, with their targets (verdicts.ts). A benchmark, not
// a test: it prints figures and writes them as JSON, and fails only when calls fail.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { compareResults } from './compare.js';
import { summariseProfiles } from './cpu-profile.js';
import type { Comparison } from './figures.js';
import { idleSessions, IDLE_SESSIONS, type SessionsResult } from './idle-sessions.js';
import { LOAD_PHASES, runLoadPhase, targetsNeeded } from './load-phases.js';
import { gatewayLogProblems } from './logs.js';
import { machine, sourceRevision } from './machine.js';
import { parseOptions, USAGE, type Options } from './options.js';
import { removeRunDir, runDir, stopAll, stopAllOnSignals } from './processes.js';
import { calibrationLines, comparisonTable, eraLines, failureLines, machineLines, pipelineLines, rawFrontLines, sessionsTable, startupLines, tracingLines, verdictTable } from './report.js';
import { readResults, toDocument, writeResults } from './results-json.js';
import { scaleToolsList, type ScaleStartup } from './scale-tools-list.js';
import type { RoundHooks } from './scenarios.js';
import { startStack, type GatewaySettings } from './stack.js';
import type { Target } from './targets.js';
import { verdicts } from './verdicts.js';

const DEFAULT_JSON = fileURLToPath(new URL('./results/latest.json', import.meta.url));
// A last guard over the bounds of each phase: whatever hangs, the run ends, and takes its processes with it.
const RUN_DEADLINE_MS = 480_000;

async function main(opts: Options): Promise<number> {
  const startedAt = new Date();
  const gateway: GatewaySettings = {
    logLevel: opts.logLevel,
    ...(opts.gatewayCli !== undefined && { cli: opts.gatewayCli }),
    ...(opts.gatewayNodeArgs !== undefined && { nodeArgs: opts.gatewayNodeArgs }),
  };
  const comparisons: Comparison[] = [];
  const profiles: string[] = [];

  const loadPhases = opts.phases.filter((phase) => LOAD_PHASES[phase] !== undefined);
  const names = targetsNeeded(loadPhases, opts.targets);
  if (names.length > 0) {
    progress(`starting ${names.join(', ')}`);
    const running = await startStack(names, gateway, progress);
    const hooks = profilerHooks(opts, running, profiles);
    for (const phase of loadPhases) comparisons.push(...(await runLoadPhase(phase, running, opts.scenarios, hooks, progress)));
    // The scale phases start their own processes; these would only take memory and the odd timer.
    await stopAll();
  }
  let scaleStartups: readonly ScaleStartup[] = [];
  if (opts.phases.includes('scale')) {
    const scale = await scaleToolsList(gateway, progress);
    comparisons.push(...scale.comparisons);
    scaleStartups = scale.startups;
  }
  const sessions: SessionsResult[] = [];
  if (opts.phases.includes('sessions')) {
    for (const store of ['memory', 'redis'] as const) sessions.push(await idleSessions(store, gateway, progress));
  }
  await stopAll();

  const host = machine();
  const judged = verdicts({ comparisons, sessions });
  const notes = [
    `gateways log at ${opts.logLevel} to files (as deployed: one audit line per call at info; access lines of plain answers are at debug)`,
    ...(opts.profileTarget !== undefined ? [`${opts.profileTarget}'s front ran under the CPU profiler during its measured rounds: its figures are slowed`] : []),
    ...(opts.gatewayCli !== undefined ? [`gateway CLI ${opts.gatewayCli}`] : []),
    ...(opts.gatewayNodeArgs !== undefined ? [`gateway node options ${opts.gatewayNodeArgs.join(' ')}`] : []),
  ];
  const out = [
    '',
    'Switchboard bench: tools/call of echo (and ping, tools/list) through each front vs the floor and the upstream alone',
    ...machineLines(startedAt, host),
    'loads:   light = undici Pool, keep-alive, one connection per caller (HTTP) or the one stdio pipe; sdk-v2/v1 = official clients',
    ...notes.map((note) => `note:    ${note}`),
    '',
    comparisonTable(comparisons),
    '',
    'cores busy: the machine\'s busy CPU time during the phase (every process and the kernel) / its wall time: how much of',
    'the CPUs the target\'s processes could use at all. Its calls/s is that over the machine\'s CPU per call, nearly all of',
    'which is the CPU per call of its processes below.',
    'CPU ms/call: CPU time (user+sys) each process used during the phase / calls; front = gateway or mcp-proxy,',
    'upstream = server-everything (or the floor), load = this process.',
    'front GC ms/call: the GC pauses of the front\'s main thread during the phase / calls, and (in brackets) its full',
    'collections; with the gateway\'s --single-threaded-gc that is all its GC work (docs/decisions/0007-single-threaded-gc.md).',
    'front KB alloc/call: what the front allocated in its young generation during the phase / calls, garbage included;',
    'unlike time it hardly moves with the machine\'s load, so it shows a change in the front\'s work that CPU time cannot.',
    'Every front (gateway, mcp-proxy, min-proxy) has a full GC after its first warm-up, as a process that has run a while has,',
    'then the warm-up again.',
  ];
  const pipeline = pipelineLines(comparisons);
  if (pipeline.length > 0) out.push('', ...pipeline);
  const eras = eraLines(comparisons);
  if (eras.length > 0) out.push('', ...eras);
  const tracing = tracingLines(comparisons);
  if (tracing.length > 0) out.push('', ...tracing);
  const calibration = calibrationLines(comparisons);
  if (calibration.length > 0) out.push('', ...calibration);
  const rawFront = rawFrontLines(comparisons);
  if (rawFront.length > 0) out.push('', ...rawFront);
  if (scaleStartups.length > 0) out.push('', ...startupLines(scaleStartups));
  if (sessions.length > 0) {
    out.push('', `${IDLE_SESSIONS} idle 2025 sessions (initialize only), per session after a full GC; fan-out: from the upstream's change to every session's notification queued`, sessionsTable(sessions));
  }
  out.push('', verdictTable(judged), '');
  process.stdout.write(out.join('\n'));

  const document = toDocument({
    startedAt,
    machine: host,
    source: sourceRevision(),
    settings: { phases: opts.phases, scenarios: opts.scenarios, targets: opts.targets, loadPhases: LOAD_PHASES, idleSessions: IDLE_SESSIONS, notes },
    comparisons,
    scaleStartups,
    sessions,
    verdicts: judged,
  });
  writeResults(opts.jsonPath, document);
  progress(`figures written to ${opts.jsonPath}`);
  if (opts.comparePath !== undefined) process.stdout.write(`\nchange since ${opts.comparePath}:\n${compareResults(readResults(opts.comparePath), document)}\n`);
  if (profiles.length > 0) process.stdout.write(`\n${summariseProfiles(profiles)}\n`);

  const problems = await gatewayLogProblems(runDir());
  for (const [file, count] of Object.entries(problems.counts)) progress(`${file}: ${count} warnings or errors`);
  problems.first.forEach((line) => progress(line));
  if (opts.keep) progress(`run directory kept: ${runDir()}`);
  else removeRunDir();

  const failed = failureLines(comparisons);
  failed.forEach((line) => process.stderr.write(`bench: ${line}\n`));
  return failed.length === 0 ? 0 : 1;
}

/** Profiles the chosen target's front during each of its measured rounds, one file per round. */
function profilerHooks(opts: Options, running: readonly Target[], files: string[]): RoundHooks | undefined {
  if (opts.profileTarget === undefined) return undefined;
  const chosen = running.find((target) => target.name === opts.profileTarget);
  if (chosen?.control === undefined) {
    progress(`--profile: ${opts.profileTarget} is not running, or has no front process to profile`);
    return undefined;
  }
  const control = chosen.control;
  return {
    async before(target) {
      if (target === chosen) await control.profileStart();
    },
    async after(target) {
      if (target !== chosen) return;
      const file = join(runDir(), `profile-${files.length + 1}.cpuprofile`);
      await control.profileStop(file);
      files.push(file);
    },
  };
}

function progress(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

stopAllOnSignals(progress);

const watchdog = setTimeout(() => {
  progress(`the run took more than ${RUN_DEADLINE_MS / 1000} s; stopping`);
  void stopAll().finally(() => process.exit(1));
}, RUN_DEADLINE_MS);
watchdog.unref();

let options: Options;
try {
  options = parseOptions(process.argv.slice(2), DEFAULT_JSON);
} catch (error) {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
  process.exit(2);
}
if (options.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
main(options).then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    await stopAll();
    progress(`the run directory (configs, logs) is kept: ${runDir()}`);
    process.exitCode = 1;
  },
);
