// The gateways' warnings and errors during the run. Their logs go to files in the run directory
// (processes.ts), at the deployed level, so logging costs what it costs in production without this
// process reading every line while it measures; the files are read once, at the end.
import { createReadStream, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const PROBLEM = /"level":"(warn|error|fatal)"/;
const SHOWN = 5;

export interface LogProblems {
  /** Warnings and worse, by log file. */
  readonly counts: Readonly<Record<string, number>>;
  /** The first few, as written. */
  readonly first: readonly string[];
}

export async function gatewayLogProblems(dir: string): Promise<LogProblems> {
  const counts: Record<string, number> = {};
  const first: string[] = [];
  for (const file of readdirSync(dir).filter((name) => name.startsWith('gateway-') && name.endsWith('.log'))) {
    const lines = createInterface({ input: createReadStream(join(dir, file)), crlfDelay: Infinity });
    for await (const line of lines) {
      if (!PROBLEM.test(line)) continue;
      counts[file] = (counts[file] ?? 0) + 1;
      if (first.length < SHOWN) first.push(`${file}: ${line.slice(0, 300)}`);
    }
  }
  return { counts, first };
}
