// Tells when the config file may have changed: a change to the file (editors often replace it
// rather than write it in place, and Kubernetes swaps a ConfigMap's symlinked directory, so the
// directory is watched, not the file), or SIGHUP. Bursts are debounced into one call.
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

export interface ConfigWatcher {
  close(): void;
}

export function watchConfig(file: string, onChange: (reason: 'file' | 'SIGHUP') => void, debounceMs = 250): ConfigWatcher {
  let timer: NodeJS.Timeout | undefined;
  const fire = (reason: 'file' | 'SIGHUP') => {
    clearTimeout(timer);
    timer = setTimeout(() => onChange(reason), debounceMs);
  };
  const name = basename(file);
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(file), (_event, changed) => {
      // A ConfigMap update renames the ..data symlink: any change in the directory may be ours.
      if (changed === null || changed === name || changed.startsWith('..')) fire('file');
    });
    watcher.on('error', () => {});
  } catch {
    // A directory that cannot be watched (some network file systems) leaves SIGHUP.
  }
  const onHangUp = () => fire('SIGHUP');
  process.on('SIGHUP', onHangUp);
  return {
    close() {
      clearTimeout(timer);
      watcher?.close();
      process.off('SIGHUP', onHangUp);
    },
  };
}
