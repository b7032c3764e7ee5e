// `--compare PATH`: what changed since an earlier run's JSON. For every row both runs have, p50 and
// calls/s then and now, the front's CPU per call (of the timed figures, the one that moves least
// with a noisy machine) and what it allocated per call (which hardly moves at all; runs from
// before it was counted leave it blank); then every verdict's figure then and now. Wall-clock figures on a shared machine move
// by up to 2x between runs: read the CPU column first.
//
//   node --import tsx bench/compare.ts [OLD.json [NEW.json]]   (OLD defaults to bench/baseline.json,
//                                                              NEW to bench/results/latest.json)
import { fileURLToPath, pathToFileURL } from 'node:url';

import type { Figures } from './figures.js';
import { BASELINE } from './options.js';
import { formatTable } from './report.js';
import { readResults, type ResultsDocument } from './results-json.js';

export function compareResults(before: ResultsDocument, after: ResultsDocument): string {
  const rows: string[][] = [];
  for (const now of after.comparisons) {
    const then = before.comparisons.find((c) => c.phase === now.phase && c.load === now.load && c.scenario === now.scenario);
    if (then === undefined) continue;
    let first = true;
    for (const [name, b] of Object.entries(now.targets)) {
      const a = then.targets[name];
      if (a === undefined) continue;
      rows.push([
        first ? `${now.phase} ${now.load} ${now.scenario}` : '',
        b.label,
        `${a.p50Ms.toFixed(2)} -> ${b.p50Ms.toFixed(2)}`,
        change(a.p50Ms, b.p50Ms),
        `${a.callsPerSecond.toFixed(0)} -> ${b.callsPerSecond.toFixed(0)}`,
        change(a.callsPerSecond, b.callsPerSecond),
        a.cpuMsPerCall.front === undefined || b.cpuMsPerCall.front === undefined ? '' : `${a.cpuMsPerCall.front.toFixed(2)} -> ${b.cpuMsPerCall.front.toFixed(2)}`,
        allocatedChange(a, b),
      ]);
      first = false;
    }
  }
  const verdictRows = after.verdicts.map((now) => {
    const then = before.verdicts.find((v) => v.what === now.what);
    return [now.id, now.what, then?.raw === undefined ? 'n/a' : then.raw.toFixed(3), now.raw === undefined ? 'n/a' : now.raw.toFixed(3), now.goal, now.pass === undefined ? 'n/a' : now.pass ? 'PASS' : 'FAIL'];
  });
  const scaleRows: string[][] = [];
  for (const now of after.sessions) {
    const then = before.sessions.find((s) => s.store === now.store);
    if (then === undefined) continue;
    scaleRows.push([`${now.store} sessions: fan-out ms`, fixed(then.fanoutMs, 0), fixed(now.fanoutMs, 0), change(then.fanoutMs ?? NaN, now.fanoutMs ?? NaN)]);
    scaleRows.push([`${now.store} sessions: opened/s`, fixed(then.opensPerSecond, 0), fixed(now.opensPerSecond, 0), change(then.opensPerSecond, now.opensPerSecond)]);
  }
  for (const now of after.scaleStartups) {
    const then = before.scaleStartups.find((s) => s.upstreams === now.upstreams);
    if (then !== undefined) scaleRows.push([`startup with ${now.upstreams} upstreams, ms`, fixed(then.startupMs, 0), fixed(now.startupMs, 0), change(then.startupMs, now.startupMs)]);
  }
  return [
    `before: ${before.startedAt} ${before.source?.commit.slice(0, 12) ?? ''}${before.source?.dirty ? ' (dirty)' : ''}`,
    `after:  ${after.startedAt} ${after.source?.commit.slice(0, 12) ?? ''}${after.source?.dirty ? ' (dirty)' : ''}`,
    '',
    formatTable(['phase', 'target', 'p50 ms', 'change', 'calls/s', 'change', 'front CPU ms/call', 'front KB alloc/call'], rows, 2),
    '',
    formatTable(['', 'ratio (docs/performance.md)', 'before', 'after', 'target', 'now'], verdictRows, 2),
    ...(scaleRows.length > 0 ? ['', formatTable(['scale', 'before', 'after', 'change'], scaleRows, 1)] : []),
  ].join('\n');
}

function allocatedChange(before: Figures, after: Figures): string {
  const then = before.frontGc?.allocatedBytesPerCall;
  const now = after.frontGc?.allocatedBytesPerCall;
  return then === undefined || now === undefined ? '' : `${(then / 1024).toFixed(1)} -> ${(now / 1024).toFixed(1)}`;
}

const fixed = (value: number | undefined, digits: number): string => (value === undefined ? 'n/a' : value.toFixed(digits));

function change(before: number, after: number): string {
  if (!Number.isFinite(before) || !Number.isFinite(after) || before === 0) return '';
  const percent = ((after - before) / before) * 100;
  return `${percent >= 0 ? '+' : ''}${percent.toFixed(0)}%`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [oldPath = BASELINE, newPath = fileURLToPath(new URL('./results/latest.json', import.meta.url))] = process.argv.slice(2);
  process.stdout.write(`${compareResults(readResults(oldPath), readResults(newPath))}\n`);
}
