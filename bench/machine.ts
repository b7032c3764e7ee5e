// Where and when the figures were taken: printed above the table and stored in the JSON, so that
// figures pasted into an issue, or compared with a later run, say what they came from.
import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus, loadavg, platform, release, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';

export interface Machine {
  readonly node: string;
  readonly os: string;
  readonly cpus: number;
  readonly cpuModel: string;
  readonly availableParallelism: number;
  readonly memoryGiB: number;
  /** 1/5/15-minute load average at the end of the run. */
  readonly loadAverage: readonly number[];
}

export function machine(): Machine {
  const cpuList = cpus();
  return {
    node: process.version,
    os: `${platform()} ${release()}`,
    cpus: cpuList.length,
    cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
    availableParallelism: availableParallelism(),
    memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
    loadAverage: loadavg().map((value) => Number(value.toFixed(2))),
  };
}

/** The commit the bench ran from, and whether the work tree had changes: which build the figures belong to. */
export function sourceRevision(): { commit: string; dirty: boolean } | undefined {
  const cwd = fileURLToPath(new URL('..', import.meta.url));
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd, encoding: 'utf8' }).trim() !== '';
    return { commit, dirty };
  } catch {
    return undefined; // not a git checkout (a copied tree, an image): then it is simply not recorded
  }
}
