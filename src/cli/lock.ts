// `switchboard lock`: pins what the configured upstreams list now, or (--check) says how they differ
// from their pins. Exit codes, as diff(1) and `git diff --exit-code` have them, so CI can tell
// drift from breakage: 0 written / the upstreams match; 1 (--check) they differ; 2 the config or
// the lock file is invalid, or an upstream cannot be listed (named), and nothing was written.
import { rename, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ConfigError, loadConfig, type ConfigOverrides } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { createLogger } from '../observe/logger.js';
import { renderServerComparison } from '../pinning/diff.js';
import { listLiveTools } from '../pinning/live-tools.js';
import { lockFromLists, readLockFile, renderLockFile, type LockFile } from '../pinning/lock-file.js';
import { compareServer, isClean, type ServerComparison } from '../pinning/verdicts.js';

export const LOCK_EXIT = { ok: 0, differs: 1, failed: 2 } as const;

export interface LockCommand {
  readonly configFile: string;
  readonly overrides: ConfigOverrides;
  readonly lockFile?: string;
  readonly check: boolean;
}

export interface LockOutput {
  out(text: string): void;
  err(text: string): void;
}

export async function runLockCommand(command: LockCommand, env: NodeJS.ProcessEnv, output: LockOutput): Promise<number> {
  let config: Config;
  try {
    config = await loadConfig(command.configFile, env, command.overrides);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    output.err(`${error.format()}\n`);
    return LOCK_EXIT.failed;
  }
  // A path on the command line is the user's, relative to where they are; the config's is relative to the config.
  const lockFile = command.lockFile !== undefined ? resolve(command.lockFile) : config.pinning.lockFile;

  // Read first: a --check without a usable lock file need not start a single upstream.
  let pinned: LockFile | undefined;
  try {
    pinned = await readLockFile(lockFile);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    if (command.check) {
      output.err(`${error.format()}\n`);
      return LOCK_EXIT.failed;
    }
    // Writing replaces it; an unreadable old file only means there is nothing to compare with.
    if (!isMissing(error)) output.err(`${error.format()}\nswitchboard lock: the lock file above is replaced\n`);
  }

  // Upstream processes log to our log; on a terminal only what matters (LOG_LEVEL=info shows all).
  const logger = createLogger({ level: env.LOG_LEVEL ?? 'warn', destination: process.stderr });
  const live = await listLiveTools(config, logger);
  if (live.failures.length > 0) {
    for (const { server, reason } of live.failures) {
      const named = reason.includes(JSON.stringify(server)) ? reason : `upstream ${JSON.stringify(server)}: ${reason}`;
      output.err(`switchboard lock: ${named}\n`);
    }
    output.err(`switchboard lock: ${command.check ? 'nothing was compared' : `${lockFile} was not written`}\n`);
    return LOCK_EXIT.failed;
  }

  const current = lockFromLists(live.tools);
  const comparisons = compareLocks(pinned, current);
  const report = comparisons.flatMap((comparison) => {
    const lines = renderServerComparison(comparison);
    return lines.length > 0 ? [...lines, ''] : [];
  });
  const differs = report.length > 0;
  const size = describeSize(current);

  if (command.check) {
    if (!differs) {
      output.out(`${lockFile}: the upstreams match their pins (${size})\n`);
      return LOCK_EXIT.ok;
    }
    output.out(`${lockFile}: the upstreams differ from their pins\n\n${report.join('\n')}\n`);
    output.out(`${summary(comparisons)}. Review the changes; \`switchboard lock\` pins them.\n`);
    return LOCK_EXIT.differs;
  }

  if (pinned !== undefined && !differs) {
    output.out(`${lockFile}: unchanged (${size})\n`);
    return LOCK_EXIT.ok;
  }
  try {
    await writeAtomically(lockFile, renderLockFile(current));
  } catch (error) {
    output.err(`switchboard lock: cannot write ${lockFile}: ${error instanceof Error ? error.message : String(error)}\n`);
    return LOCK_EXIT.failed;
  }
  if (pinned !== undefined) output.out(`${report.join('\n')}\n`);
  output.out(`wrote ${lockFile} (${size})\n`);
  return LOCK_EXIT.ok;
}

/** Every server of either side: those the upstreams list, in name order, then those only the lock file has. */
export function compareLocks(pinned: LockFile | undefined, current: LockFile): ServerComparison[] {
  const comparisons = [...current.servers.keys()].sort().map((server) => compareServer(server, pinned?.servers.get(server), current.servers.get(server)!));
  const gone = [...(pinned?.servers.keys() ?? [])].filter((server) => !current.servers.has(server)).sort();
  // A server the config no longer has (or has disabled): its pins would go at the next `lock`.
  for (const server of gone) comparisons.push(compareServer(server, pinned!.servers.get(server), undefined));
  return comparisons;
}

function summary(comparisons: readonly ServerComparison[]): string {
  const sum = (pick: (comparison: ServerComparison) => number) => comparisons.reduce((total, comparison) => total + pick(comparison), 0);
  // The tools of a server the config dropped were not dropped by its upstream: counted apart.
  const dropped = comparisons.filter((comparison) => !comparison.inConfig).length;
  const parts = [
    `${sum((c) => c.changed.length)} changed`,
    `${sum((c) => c.added.length)} not in the lock file`,
    `${sum((c) => (c.inConfig ? c.removed.length : 0))} no longer listed`,
    ...(dropped > 0 ? [`${dropped} server${dropped === 1 ? '' : 's'} removed or disabled in the config`] : []),
  ];
  return `${comparisons.filter((comparison) => !isClean(comparison)).length} of ${comparisons.length} servers differ: ${parts.join(', ')}`;
}

function describeSize(lock: LockFile): string {
  const tools = [...lock.servers.values()].reduce((total, pins) => total + pins.size, 0);
  return `${lock.servers.size} server${lock.servers.size === 1 ? '' : 's'}, ${tools} tool${tools === 1 ? '' : 's'}`;
}

function isMissing(error: ConfigError): boolean {
  return error.problems.some((problem) => problem.message.includes('ENOENT'));
}

/** Written beside the target, then renamed over it: a reader (a gateway reloading) never sees half a file. */
async function writeAtomically(file: string, text: string): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text, 'utf8');
  await rename(temporary, file);
}
