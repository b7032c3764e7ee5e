// The printed result: one table per run, with the machine and the date above it. Each scenario has
// a row per target, then the ratios of figures.ts: the gateway's cost in each era against the
// upstream alone, and the 2026 stateless path against the 2025 session path.
import { figuresOf, ratioOf, RATIOS, type Comparison, type Figures } from './figures.js';
import type { Machine } from './machine.js';

export function machineLines(startedAt: Date, host: Machine): string[] {
  return [
    `date:    ${startedAt.toISOString()} (start of the run)`,
    `node:    ${host.node} (${host.os})`,
    `cpus:    ${host.cpus} x ${host.cpuModel} (availableParallelism ${host.availableParallelism}), ${host.memoryGiB} GiB RAM`,
    // Our own three processes keep ~2-3 cores busy; much more than that means other work shared the machine.
    `load:    ${host.loadAverage.join(' ')} (1/5/15-min load average at the end of the run)`,
  ];
}

export function comparisonTable(comparisons: readonly Comparison[]): string {
  const header = ['scenario', 'target', 'calls', 'errors', 'p50 ms', 'p99 ms', 'calls/s', 'CPU ms/call: gateway', 'upstream', 'load'];
  const rows: string[][] = [];
  for (const { load, scenario, results } of comparisons) {
    const byName = new Map(results.map(({ target, result }) => [target.name, figuresOf(result)]));
    results.forEach(({ target }, i) => {
      const f = byName.get(target.name)!;
      const cpu = f.cpuMsPerCall;
      rows.push([
        i === 0 ? `${load} ${scenario}` : '',
        target.label,
        String(f.calls),
        String(f.errors),
        ms(f.p50Ms),
        ms(f.p99Ms),
        rate(f.callsPerSecond),
        // The gateway idles while the upstream is called directly: no figure, rather than a misleading one.
        target.viaGateway ? cpuMs(cpu.gateway) : '',
        cpuMs(cpu.upstream),
        cpuMs(cpu.load),
      ]);
    });
    for (const { label, of, to } of RATIOS) {
      const [a, b] = [byName.get(of), byName.get(to)];
      if (a === undefined || b === undefined) continue;
      const r = ratioOf(a, b);
      rows.push(['', label, '', '', ratio(r.p50), ratio(r.p99), ratio(r.callsPerSecond), r.gatewayCpuPerCall === undefined ? '' : ratio(r.gatewayCpuPerCall)]);
    }
  }
  return formatTable(header, rows);
}

/** Failed calls, one line per target that had any: the run fails when calls fail. */
export function failureLines(comparisons: readonly Comparison[]): string[] {
  return comparisons.flatMap(({ load, scenario, results }) =>
    results.filter(({ result }) => result.errors > 0).map(({ target, result }) => `${load} ${scenario} ${target.name}: ${result.errors} failed calls, first: ${result.firstError}`),
  );
}

const ms = (value: number): string => value.toFixed(2);
const rate = (value: number): string => value.toFixed(0);
const ratio = (value: number): string => `${value.toFixed(2)}x`;
/** n/a where the process's CPU time could not be read (no /proc). */
const cpuMs = (value: Figures['cpuMsPerCall'][keyof Figures['cpuMsPerCall']]): string => (value === undefined ? 'n/a' : ms(value));

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
