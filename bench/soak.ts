// `npm run soak -- --minutes N`: the gateway (built dist/, Redis store, server-everything over
// stdio) under a steady mixed load for N minutes (soak-load.ts), sampled every so often
// (soak-run.ts), then a table and a verdict per series: flat, or growing (soak-verdict.ts says
// the rule). Exits 1 when a series grew or operations failed. Loopback only.
import { parseArgs } from 'node:util';

import { stopAllOnSignals } from './processes.js';
import { runSoak, SAMPLE_HEADER, verdictLine } from './soak-run.js';
import { WORK_KINDS } from './soak-load.js';

const USAGE = `npm run soak -- [options]
  --minutes N         how long the load runs (default 30; fractions allowed)
  --sample-seconds S  time between samples (default: the run in about 40 samples, at least 1 s)
  --pace-ms MS        pause between one worker's operations (default 5)
  --log-level LEVEL   the gateway's pino level (default warn)
  --keep              keep the run directory (config, gateway log) and print where it is`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '30' },
      'sample-seconds': { type: 'string' },
      'pace-ms': { type: 'string', default: '5' },
      'log-level': { type: 'string', default: 'warn' },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const minutes = Number(values.minutes);
  const paceMs = Number(values['pace-ms']);
  if (!(minutes > 0) || !(paceMs >= 0)) throw new Error(`--minutes must be above 0 and --pace-ms at least 0\n${USAGE}`);
  const durationMs = minutes * 60_000;
  const sampleMs = values['sample-seconds'] === undefined ? Math.max(1_000, Math.round(durationMs / 40)) : Number(values['sample-seconds']) * 1000;
  if (!(sampleMs >= 1_000)) throw new Error('--sample-seconds must be at least 1');

  const progress = (line: string) => process.stdout.write(`${line}\n`);
  progress(`soak: ${minutes} min, sampling every ${sampleMs / 1000} s`);
  progress(SAMPLE_HEADER);
  const result = await runSoak({ durationMs, sampleMs, paceMs, logLevel: values['log-level'], keep: values.keep, progress: (line) => progress(line) });

  const { ops, errors, lastErrors } = result.counts;
  progress('');
  progress(`operations: ${WORK_KINDS.map((kind) => `${kind} ${ops[kind]}${errors[kind] > 0 ? ` (${errors[kind]} failed)` : ''}`).join(', ')}`);
  for (const line of lastErrors) progress(`  last error: ${line}`);
  if (!result.gcForced) progress('note: the gateway could not be made to collect garbage before samples; heap figures include garbage');
  progress('');
  progress('verdict (the second half of the samples, a least-squares line; flat when its growth is within the limit):');
  for (const verdict of result.verdicts) progress(`  ${verdictLine(verdict)}`);
  const failed = WORK_KINDS.reduce((sum, kind) => sum + errors[kind], 0);
  const growing = result.verdicts.filter((verdict) => verdict.flat === false);
  const unjudged = result.verdicts.some((verdict) => verdict.flat === undefined);
  progress(
    growing.length > 0
      ? `NOT FLAT: ${growing.map((verdict) => verdict.name).join(', ')}`
      : unjudged
        ? 'too short to judge: run longer (at least 6 samples)'
        : 'FLAT: memory, handles, children and Redis memory stayed flat',
  );
  if (failed > 0) progress(`${failed} operations failed`);
  return growing.length > 0 || failed > 0 ? 1 : 0;
}

stopAllOnSignals((message) => void process.stderr.write(`soak: ${message}\n`));

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`soak: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
