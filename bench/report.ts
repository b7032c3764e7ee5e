// The printed result: the machine and the date, one table of every load phase (a row per target),
// the scale rows, and the verdicts: the ratios docs/performance.md names, each with its target.
import { figuresOf, type Comparison, type Figures } from './figures.js';
import type { SessionsResult } from './idle-sessions.js';
import type { Machine } from './machine.js';
import type { ScaleStartup } from './scale-tools-list.js';
import { TARGET_SPECS, type StackPart, type TargetName, type TargetSpec } from './targets.js';
import { CONCURRENT, type Verdict } from './verdicts.js';

export function machineLines(startedAt: Date, host: Machine): string[] {
  return [
    `date:    ${startedAt.toISOString()} (start of the run)`,
    `node:    ${host.node} (${host.os})`,
    `cpus:    ${host.cpus} x ${host.cpuModel} (availableParallelism ${host.availableParallelism}), ${host.memoryGiB} GiB RAM`,
    // Our own processes keep ~2-3 cores busy; much more than that means other work shared the machine.
    `load:    ${host.loadAverage.join(' ')} (1/5/15-min load average at the end of the run)`,
  ];
}

export function comparisonTable(comparisons: readonly Comparison[]): string {
  const header = ['phase', 'target', 'calls', 'errors', 'p50 ms', 'p99 ms', 'calls/s', 'cores busy', 'CPU ms/call: front', 'upstream', 'load', 'front GC ms/call (full)', 'front KB alloc/call'];
  const rows: string[][] = [];
  for (const { phase, load, scenario, results } of comparisons) {
    results.forEach(({ target, result }, i) => {
      const f = figuresOf(result);
      rows.push([
        i === 0 ? `${phase} ${load} ${scenario}` : '',
        target.label,
        String(f.calls),
        String(f.errors),
        ms(f.p50Ms),
        ms(f.p99Ms),
        rate(f.callsPerSecond),
        f.coresBusy === undefined ? '' : f.coresBusy.toFixed(2),
        cpuMs(f.cpuMsPerCall.front),
        cpuMs(f.cpuMsPerCall.upstream),
        cpuMs(f.cpuMsPerCall.load),
        f.frontGc === undefined ? '' : `${f.frontGc.msPerCall.toFixed(3)} (${f.frontGc.major})`,
        f.frontGc?.allocatedBytesPerCall === undefined ? '' : (f.frontGc.allocatedBytesPerCall / 1024).toFixed(1),
      ]);
    });
  }
  return formatTable(header, rows, 2);
}

export function startupLines(startups: readonly ScaleStartup[]): string[] {
  return startups.map(({ upstreams, tools, startupMs }) => `tools/list gateway with ${upstreams} stdio upstream(s), ${tools} tools: ready in ${(startupMs / 1000).toFixed(1)} s`);
}

export function sessionsTable(results: readonly SessionsResult[]): string {
  const header = ['store', 'sessions', 'opened/s', 'gw heap/session', 'gw RSS/session', 'Redis/session', 'fan-out ms', 'reached', 'heap/session after'];
  const rows = results.map((r) => [
    r.store,
    String(r.sessions),
    rate(r.opensPerSecond),
    `${kb(r.gatewayHeapBytesPerSession)}${r.gcForced ? '' : ' (no GC)'}`,
    kb(r.gatewayRssBytesPerSession),
    r.redisBytesPerSession === undefined ? '' : kb(r.redisBytesPerSession),
    r.fanoutMs === undefined ? 'timeout' : r.fanoutMs.toFixed(0),
    String(r.fanoutSessions),
    kb(r.heapBytesPerSessionAfterFanout),
  ]);
  return formatTable(header, rows, 1);
}

export function verdictTable(list: readonly Verdict[]): string {
  const rows = list.map((v) => [v.id, v.what, v.value, v.goal, v.pass === undefined ? 'n/a' : v.pass ? 'PASS' : 'FAIL']);
  return formatTable(['', 'ratio (docs/performance.md)', 'value', 'target', ''], rows, 2);
}

/**
 * What tracing costs (issue 13): for each scenario that ran the traced gateway beside the same
 * gateway untraced, the change in the front's CPU per call, in calls per second and in p50.
 */
export function tracingLines(comparisons: readonly Comparison[]): string[] {
  return comparisons.flatMap(({ phase, load, scenario, results }) => {
    const [plain, traced] = [figuresOfTarget(results, 'gw-stdio-2025'), figuresOfTarget(results, 'gw-stdio-2025-traced')];
    if (plain === undefined || traced === undefined) return [];
    const [cpuPlain, cpuTraced] = [plain.cpuMsPerCall.front, traced.cpuMsPerCall.front];
    const cpu = cpuPlain === undefined || cpuTraced === undefined ? 'n/a' : `${ms(cpuPlain)} -> ${ms(cpuTraced)} ms (${change(cpuTraced / cpuPlain)})`;
    return [
      `tracing on vs off, ${phase} ${load} ${scenario}: front CPU/call ${cpu}, calls/s ${change(traced.callsPerSecond / plain.callsPerSecond)}, p50 ${ms(plain.p50Ms)} -> ${ms(traced.p50Ms)} ms`,
    ];
  });
}

/**
 * What a microsecond of a front's CPU is worth in calls per second here: for each scenario that ran
 * the reference proxy beside its busy twin (min-proxy-busy, a fixed amount more CPU per call), the
 * throughput lost per microsecond of extra front CPU, and at that rate what each gateway's gap to
 * the reference comes to in microseconds per call. On two cores the load, the front and the upstream
 * share the CPUs, so throughput follows the sum of their costs; this turns a CPU saving into the
 * calls/s it should buy, and a gap in calls/s into the CPU it stands for.
 */
export function calibrationLines(comparisons: readonly Comparison[]): string[] {
  return comparisons.flatMap(({ phase, load, scenario, results }) => {
    const [reference, busy] = [figuresOfTarget(results, 'min-proxy'), figuresOfTarget(results, 'min-proxy-busy')];
    const [cpuReference, cpuBusy] = [reference?.cpuMsPerCall.front, busy?.cpuMsPerCall.front];
    if (reference === undefined || busy === undefined || cpuReference === undefined || cpuBusy === undefined || cpuBusy <= cpuReference) return [];
    const extraUs = (cpuBusy - cpuReference) * 1000;
    const lostPerUs = (1 - busy.callsPerSecond / reference.callsPerSecond) / extraUs;
    // A 2026 gateway is set beside the reference asked in 2026, where the run has it.
    const modernReference = figuresOfTarget(results, 'min-proxy-2026');
    const gateways = results
      .filter(({ target }) => target.name.startsWith('gw-stdio') || target.name.startsWith('gw-redis'))
      .flatMap(({ target, result }) => {
        if (result.samples.length === 0 || lostPerUs <= 0) return [];
        const [against, name] = target.name.endsWith('-2026') && modernReference ? [modernReference, 'min-proxy-2026'] : [reference, 'min-proxy'];
        const ratio = figuresOf(result).callsPerSecond / against.callsPerSecond;
        return [`${target.name} ${change(ratio)} calls/s vs ${name}, ~${((1 - ratio) / lostPerUs).toFixed(1)} us`];
      });
    return [
      `front CPU calibration, ${phase} ${load} ${scenario}: the reference proxy with ${extraUs.toFixed(1)} us more front CPU per call ` +
        `(${ms(cpuReference)} -> ${ms(cpuBusy)} ms) answered ${change(busy.callsPerSecond / reference.callsPerSecond)} calls/s, ` +
        `${(lostPerUs * 100).toFixed(2)}% per us`,
      ...(gateways.length > 0 ? [`  each gateway against the reference, and what that is worth at this rate in front CPU per call: ${gateways.join('; ')}`] : []),
    ];
  });
}

/**
 * What node:http costs a front: for each scenario that ran the floor or the reference proxy beside
 * its twin on a bare socket reader (floor-raw, min-proxy-raw; raw-http-front.ts), the CPU per call
 * each spent and the calls/s each answered, and the reference's share of the floor's calls/s with
 * either front. The gateway serves from node:http; this says what that choice weighs here.
 */
export function rawFrontLines(comparisons: readonly Comparison[]): string[] {
  return comparisons.flatMap(({ phase, load, scenario, results }) => {
    const of = (name: string): Figures | undefined => figuresOfTarget(results, name);
    const [floor, floorRaw, reference, referenceRaw] = [of('floor'), of('floor-raw'), of('min-proxy'), of('min-proxy-raw')];
    const parts: string[] = [];
    const usPerCall = (value: number | undefined): string => (value === undefined ? '?' : (value * 1000).toFixed(1));
    if (floor && floorRaw) {
      parts.push(
        `the floor ${usPerCall(floor.cpuMsPerCall.upstream)} -> ${usPerCall(floorRaw.cpuMsPerCall.upstream)} us of CPU per call, ` +
          `${change(floorRaw.callsPerSecond / floor.callsPerSecond)} calls/s`,
      );
    }
    if (reference && referenceRaw) {
      const share = floor ? `, ${percent(reference.callsPerSecond / floor.callsPerSecond)} -> ${percent(referenceRaw.callsPerSecond / floor.callsPerSecond)} of the floor's calls/s` : '';
      parts.push(`the reference proxy ${usPerCall(reference.cpuMsPerCall.front)} -> ${usPerCall(referenceRaw.cpuMsPerCall.front)} us of front CPU per call${share}`);
    }
    return parts.length === 0 ? [] : [`node:http against a raw socket front, ${phase} ${load} ${scenario}: ${parts.join('; ')}`];
  });
}

/**
 * Where each proxy's share of the floor's calls/s goes, in the scenario (a) is judged by: calls/s is
 * the cores the machine kept busy over the machine's CPU per call, so the share is the product of
 * two ratios, the cores its processes could keep busy against the floor's (three processes that
 * wait on each other against two) and the CPU per call the floor spends against its. The first is
 * the pipeline's, the second what the front's own cost adds up to; (a) is judged on the product.
 */
export function pipelineLines(comparisons: readonly Comparison[]): string[] {
  return judgedLines(comparisons, "share of the floor's calls/s", 'as busy cores x machine CPU per call', (results) => {
    const floor = figuresOfTarget(results, 'floor');
    if (floor?.coresBusy === undefined || floor.cpuMsPerCall.machine === undefined) return [];
    const floorCores = floor.coresBusy;
    const floorCpu = floor.cpuMsPerCall.machine;
    return results.flatMap(({ target, result }) => {
      const part = specOf(target.name)?.part;
      if (part === undefined || !FLOOR_SHARE_PARTS.has(part) || result.samples.length === 0) return [];
      const proxy = figuresOf(result);
      const cpu = proxy.cpuMsPerCall.machine;
      if (proxy.coresBusy === undefined || cpu === undefined) return [];
      return [
        `${target.name} ${percent(proxy.callsPerSecond / floor.callsPerSecond)} = cores ${proxy.coresBusy.toFixed(2)} of ${floorCores.toFixed(2)} (${percent(proxy.coresBusy / floorCores)}) ` +
          `x CPU ${(floorCpu * 1000).toFixed(0)} of ${(cpu * 1000).toFixed(0)} us per call (${percent(floorCpu / cpu)})`,
      ];
    });
  });
}

/**
 * (c)'s era half split as the share of the floor is (pipelineLines): a front's 2026 calls/s over its
 * 2025 calls/s is the ratio of the cores kept busy times the inverse ratio of the machine's CPU per
 * call, and the CPU per call's difference is shown process by process. Both eras of a front are one
 * process, so its own difference is what the 2026 path costs it; the load's is what the bigger 2026
 * messages (the envelope, three more headers, resultType and serverInfo) cost the client.
 */
export function eraLines(comparisons: readonly Comparison[]): string[] {
  return judgedLines(comparisons, '2026 against 2025 calls/s', 'as busy cores x machine CPU per call (and what 2026 adds per call, by process)', (results) =>
    eraPairs(results).flatMap(([older, newer]) => {
      const [legacy, modern] = [figuresOfTarget(results, older), figuresOfTarget(results, newer)];
      if (!legacy || !modern || legacy.coresBusy === undefined || modern.coresBusy === undefined) return [];
      const [legacyCpu, modernCpu] = [legacy.cpuMsPerCall.machine, modern.cpuMsPerCall.machine];
      if (legacyCpu === undefined || modernCpu === undefined) return [];
      const differences = (['front', 'upstream', 'load'] as const).flatMap((process) => {
        const [before, after] = [legacy.cpuMsPerCall[process], modern.cpuMsPerCall[process]];
        return before === undefined || after === undefined ? [] : [`${process} ${signedUs(after - before)}`];
      });
      return [
        `${newer} vs ${older} ${percent(modern.callsPerSecond / legacy.callsPerSecond)} = cores ${percent(modern.coresBusy / legacy.coresBusy)} ` +
          `x CPU ${(legacyCpu * 1000).toFixed(0)} of ${(modernCpu * 1000).toFixed(0)} us per call (${percent(legacyCpu / modernCpu)}; ${differences.join(', ')})`,
      ];
    }),
  );
}

/**
 * The 2025 and 2026 targets of one process among `results` ([2025 name, 2026 name]), as targets.ts
 * pairs them: two targets of one stack part, one per era.
 */
function eraPairs(results: Comparison['results']): (readonly [string, string])[] {
  return results.flatMap(({ target }) => {
    const modern = specOf(target.name);
    if (modern?.era !== '2026') return [];
    const legacy = results.find((other) => {
      const spec = specOf(other.target.name);
      return spec?.part === modern.part && spec.era === '2025';
    });
    return legacy ? [[legacy.target.name, target.name] as const] : [];
  });
}

/**
 * The lines `linesOf` makes of each phase whose throughput the verdicts judge (the light load at 50 in
 * flight), under a title naming the phase; nothing for a phase without any.
 */
function judgedLines(comparisons: readonly Comparison[], title: string, how: string, linesOf: (results: Comparison['results']) => string[]): string[] {
  return comparisons
    .filter(({ load, scenario }) => load === 'light' && scenario === CONCURRENT)
    .flatMap(({ phase, load, scenario, results }) => {
      const lines = linesOf(results);
      return lines.length === 0 ? [] : [`${title}, ${phase} ${load} ${scenario}, ${how}:`, ...lines.map((line) => `  ${line}`)];
    });
}

/** The proxies of a stdio server whose share of the floor (a) judges, and the reference proxy's, by stack part. */
const FLOOR_SHARE_PARTS: ReadonlySet<StackPart> = new Set(['gw-stdio', 'gw-redis', 'min-proxy']);

/** A result's target as targets.ts describes it; undefined for a name it does not know (the scale rows'). */
function specOf(name: string): TargetSpec | undefined {
  return Object.hasOwn(TARGET_SPECS, name) ? TARGET_SPECS[name as TargetName] : undefined;
}

/** The figures of the target called `name` in one comparison; undefined when it did not run or answered nothing. */
function figuresOfTarget(results: Comparison['results'], name: string): Figures | undefined {
  const result = results.find(({ target }) => target.name === name)?.result;
  return result === undefined || result.samples.length === 0 ? undefined : figuresOf(result);
}

/** Failed calls, one line per target that had any: the run fails when calls fail. */
export function failureLines(comparisons: readonly Comparison[]): string[] {
  return comparisons.flatMap(({ phase, load, scenario, results }) =>
    results.filter(({ result }) => result.errors > 0).map(({ target, result }) => `${phase} ${load} ${scenario} ${target.name}: ${result.errors} failed calls, first: ${result.firstError}`),
  );
}

const ms = (value: number): string => value.toFixed(2);
const rate = (value: number): string => value.toFixed(0);
const kb = (bytes: number): string => `${(bytes / 1024).toFixed(2)} KB`;
const percent = (ratio: number): string => `${(ratio * 100).toFixed(1)}%`;
/** Microseconds from milliseconds, always signed: a difference. */
const signedUs = (msValue: number): string => `${msValue >= 0 ? '+' : ''}${(msValue * 1000).toFixed(1)} us`;
const change = (ratio: number): string => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)}%`;
/** Blank where the process's CPU time could not be read (no /proc) or there is no such process. */
const cpuMs = (value: Figures['cpuMsPerCall'][keyof Figures['cpuMsPerCall']]): string => (value === undefined ? '' : ms(value));

/** Left-aligned text columns (the first `textColumns`), right-aligned number columns, a rule under the header. */
export function formatTable(header: readonly string[], rows: readonly string[][], textColumns: number): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => (column < textColumns ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}
