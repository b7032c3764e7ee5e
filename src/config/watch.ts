// Tells when the config file (or a file it names, such as the lock file) may have changed: a change
// to the file (editors often replace it rather than write it in place, and Kubernetes swaps a
// ConfigMap's symlinked directory, so the directory is watched, not the file), or SIGHUP. Bursts
// are debounced into one call.
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

export interface ConfigWatcher {
  close(): void;
}

/** `files`: the config file, and any file beside it whose change is a config change too (the lock file). */
export function watchConfig(files: string | readonly string[], onChange: (reason: 'file' | 'SIGHUP') => void, debounceMs = 250): ConfigWatcher {
  let timer: NodeJS.Timeout | undefined;
  const fire = (reason: 'file' | 'SIGHUP') => {
    clearTimeout(timer);
    timer = setTimeout(() => onChange(reason), debounceMs);
  };
  const namesByDirectory = new Map<string, Set<string>>();
  for (const file of typeof files === 'string' ? [files] : files) {
    const names = namesByDirectory.get(dirname(file)) ?? new Set<string>();
    names.add(basename(file));
    namesByDirectory.set(dirname(file), names);
  }
  const watchers: FSWatcher[] = [];
  for (const [directory, names] of namesByDirectory) {
    try {
      const watcher = watch(directory, (_event, changed) => {
        // A ConfigMap update renames the ..data symlink: any change in the directory may be ours.
        if (changed === null || names.has(changed) || changed.startsWith('..')) fire('file');
      });
      watcher.on('error', () => {});
      watchers.push(watcher);
    } catch {
      // A directory that cannot be watched (some network file systems) leaves SIGHUP.
    }
  }
  const onHangUp = () => fire('SIGHUP');
  process.on('SIGHUP', onHangUp);
  return {
    close() {
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
      process.off('SIGHUP', onHangUp);
    },
  };
}
