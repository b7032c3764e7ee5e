// The printed result: one table per run, with the machine and the date, so that figures pasted into
// an issue say where and when they were taken. Ratios are gateway/direct throughout: for latency
// above 1 means the gateway adds time; for throughput below 1 means it serves fewer calls per second.
import { availableParallelism, cpus, loadavg, platform, release, totalmem } from 'node:os';
import type { MeasuredProcess, PhaseResult } from './load.js';
import { summarise } from './percentiles.js';

export interface Comparison {
  /** e.g. "sequential" or "50 concurrent". */
  readonly scenario: string;
  readonly gateway: PhaseResult;
  readonly direct: PhaseResult;
}

export function machineLines(startedAt: Date): string[] {
  const cpuList = cpus();
  return [
    `date:    ${startedAt.toISOString()} (start of the run)`,
    `node:    ${process.version} (${platform()} ${release()})`,
    `cpus:    ${cpuList.length} x ${cpuList[0]?.model.trim() ?? 'unknown'} (availableParallelism ${availableParallelism()}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM`,
    // Our own three processes keep ~2-3 cores busy; much more than that means other work shared the machine.
    `load:    ${loadavg().map((value) => value.toFixed(2)).join(' ')} (1/5/15-min load average at the end of the run)`,
  ];
}

export function comparisonTable(comparisons: readonly Comparison[]): string {
  const header = ['scenario', 'target', 'calls', 'errors', 'p50 ms', 'p99 ms', 'calls/s', 'CPU ms/call: gateway', 'upstream'];
  const rows: string[][] = [];
  for (const { scenario, gateway, direct } of comparisons) {
    const g = figures(gateway);
    const d = figures(direct);
    rows.push([scenario, 'gateway', String(g.calls), String(gateway.errors), ms(g.p50), ms(g.p99), rate(g.rate), cpuPerCall(gateway, 'gateway'), cpuPerCall(gateway, 'upstream')]);
    rows.push(['', 'direct', String(d.calls), String(direct.errors), ms(d.p50), ms(d.p99), rate(d.rate), '', cpuPerCall(direct, 'upstream')]);
    rows.push(['', 'gateway/direct', '', '', ratio(g.p50 / d.p50), ratio(g.p99 / d.p99), ratio(g.rate / d.rate)]);
  }
  return formatTable(header, rows);
}

function figures(result: PhaseResult): { calls: number; p50: number; p99: number; rate: number } {
  const summary = summarise(result.samples);
  return { calls: summary.count, p50: summary.p50, p99: summary.p99, rate: summary.count / (result.elapsedMs / 1000) };
}

/** CPU time of one process per call (successful or not) in the phase; n/a where it could not be read. */
function cpuPerCall(result: PhaseResult, process: MeasuredProcess): string {
  const cpuMs = result.cpuMs?.[process];
  return cpuMs === undefined ? 'n/a' : ms(cpuMs / (result.samples.length + result.errors));
}

const ms = (value: number): string => value.toFixed(2);
const rate = (value: number): string => value.toFixed(0);
const ratio = (value: number): string => `${value.toFixed(2)}x`;

/** Left-aligned text columns, right-aligned number columns, a rule under the header. */
function formatTable(header: readonly string[], rows: readonly string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const textColumns = 2;
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => (column < textColumns ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}
