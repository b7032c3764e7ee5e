// The lock file a config asks for: read when pinning is on, at start and at each reload, before
// anything else changes, so a missing or broken lock file stops the start (or refuses the reload)
// with its problems named, rather than leaving a gateway that enforces nothing or everything.
import type { Config } from '../config/schema.js';
import { readLockFile, type LockFile } from './lock-file.js';

/** The pins in force for `config`; undefined when pinning is off. Throws ConfigError naming the lock file. */
export async function loadPins(config: Config): Promise<LockFile | undefined> {
  if (config.pinning.mode === 'off') return undefined;
  return readLockFile(config.pinning.lockFile);
}

/** Files beside the config whose change is a reload: the lock file, when pinning is on. */
export function pinningFiles(config: Config): string[] {
  return config.pinning.mode === 'off' ? [] : [config.pinning.lockFile];
}
