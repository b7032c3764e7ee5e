// Config reload: on a change of the config file (or of a file it names, such as the pinning lock
// file) or SIGHUP the new config is validated first; an invalid one changes nothing (the problems
// are logged). A valid one starts added servers, stops removed ones, replaces changed ones, and
// re-merges the catalogue, which announces list_changed to sessions. Sessions survive. Settings
// that cannot change in a running process are named in a warning. The admin API asks for a reload
// too (reload()), and is told how it went.
import { ConfigError, type ConfigProblem } from './config/load.js';
import type { Config } from './config/schema.js';
import { watchConfig } from './config/watch.js';
import type { Logger } from './observe/logger.js';

/** Sections a running gateway cannot take over without a restart (limits.servers aside: see restartOnlyPart). */
const RESTART_ONLY = ['server', 'sessions', 'auth', 'policy', 'endpoints', 'limits', 'admin', 'telemetry', 'tasks'] as const;

/**
 * What of a section needs a restart to change. limits.requestsPerMinute is the HTTP middleware's,
 * built once; limits.servers is read where requests leave for their upstreams and follows a reload,
 * as the servers it names do.
 */
function restartOnlyPart(config: Config, section: (typeof RESTART_ONLY)[number]): unknown {
  if (section !== 'limits') return config[section];
  const { servers: _followsReload, ...rest } = config.limits;
  return rest;
}

export interface ReloadSource {
  /** The file to watch. */
  readonly file: string;
  /** Loads and validates it (with the same environment and command line overrides as at start). */
  load(): Promise<Config>;
  /** false: no watching of the file, nor SIGHUP; reload() only (tests that decide when). Default true. */
  readonly watch?: boolean;
}

export type ReloadTrigger = 'file' | 'SIGHUP' | 'admin';

/** How one reload went, for whoever asked for it (the admin API). */
export type ReloadOutcome =
  | {
      readonly outcome: 'applied';
      readonly added: readonly string[];
      readonly removed: readonly string[];
      readonly changed: readonly string[];
      /** Sections that differ from the running config but take effect only after a restart. */
      readonly restartOnly: readonly string[];
    }
  | { readonly outcome: 'refused'; readonly problems: readonly ConfigProblem[] }
  | { readonly outcome: 'failed'; readonly error: string };

export interface Reloading {
  /** Reloads now, after any reload under way; resolves with how it went (also logged as usual). */
  reload(trigger: ReloadTrigger): Promise<ReloadOutcome>;
  close(): void;
}

export interface ReloadTarget {
  current(): Config;
  /**
   * Applies a validated config. A ConfigError thrown before anything changed (a file the config
   * names, such as the lock file, is missing or invalid) refuses the reload like an invalid config.
   */
  apply(next: Config): Promise<{ added: string[]; removed: string[]; changed: string[] }>;
  /** Files the config names whose change is a reload too (the lock file); watched beside the config file. */
  companionFiles?(config: Config): readonly string[];
}

export function startReloading(source: ReloadSource, target: ReloadTarget, logger: Logger): Reloading {
  let running: Promise<unknown> = Promise.resolve();
  const reload = (trigger: ReloadTrigger): Promise<ReloadOutcome> => {
    // One reload at a time, in order: a second change waits for the first to be applied.
    const outcome = running.then(() => reloadOnce(trigger));
    running = outcome.catch(() => undefined);
    return outcome;
  };
  const onChange = (trigger: 'file' | 'SIGHUP') => void reload(trigger);
  const watches = source.watch !== false;
  const watchedFiles = () => [source.file, ...(target.companionFiles?.(target.current()) ?? [])];
  let watching = watchedFiles();
  let watcher = watches ? watchConfig(watching, onChange) : undefined;
  let closed = false;
  /** A reload may name other companion files (a new lock file): watch those from now on. */
  const rewatch = () => {
    const next = watchedFiles();
    if (closed || !watcher || next.join('\u0000') === watching.join('\u0000')) return;
    watcher.close();
    watching = next;
    watcher = watchConfig(watching, onChange);
  };

  async function reloadOnce(trigger: ReloadTrigger): Promise<ReloadOutcome> {
    let next: Config;
    try {
      next = await source.load();
    } catch (error) {
      const problems = error instanceof ConfigError ? error.problems : [{ path: '', message: String(error) }];
      logger.error({ trigger, file: source.file, problems }, 'config reload refused: the new config is invalid; the running config stays');
      return { outcome: 'refused', problems };
    }
    const previous = target.current();
    const unchangeable = RESTART_ONLY.filter(
      (section) => JSON.stringify(restartOnlyPart(previous, section)) !== JSON.stringify(restartOnlyPart(next, section)),
    );
    if (unchangeable.length > 0) {
      logger.warn({ sections: unchangeable }, 'config reload: these sections only take effect after a restart');
    }
    try {
      const changes = await target.apply(next);
      logger.info({ trigger, ...changes }, 'config reloaded');
      rewatch();
      return { outcome: 'applied', ...changes, restartOnly: unchangeable };
    } catch (error) {
      if (error instanceof ConfigError) {
        logger.error({ trigger, file: error.source ?? source.file, problems: error.problems }, 'config reload refused: the new config is invalid; the running config stays');
        return { outcome: 'refused', problems: error.problems };
      }
      const message = error instanceof Error ? error.message : String(error);
      logger.error({ trigger, err: message }, 'config reload failed');
      return { outcome: 'failed', error: message };
    }
  }

  return {
    reload,
    close: () => {
      closed = true;
      watcher?.close();
    },
  };
}
