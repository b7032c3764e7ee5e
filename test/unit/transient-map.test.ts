// TransientMap: a Map's behaviour for the entries it holds, without a Map's habit of keeping every
// value it ever held alive through young collections once its table is old (transient-map.ts).
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { TransientMap } from '../../src/support/transient-map.js';

const run = promisify(execFile);
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const PROBE = fileURLToPath(new URL('../support/map-retention-probe.ts', import.meta.url));

interface Retention {
  readonly oldSpaceGrewBy: number;
  readonly churnedBytes: number;
}

async function retention(kind: 'map' | 'transient'): Promise<Retention> {
  // The gateway's own GC flag, as it ships (bench/shipped-flags.ts).
  const { stdout } = await run(process.execPath, ['--single-threaded-gc', '--expose-gc', '--import', TSX_LOADER, PROBE, kind]);
  return JSON.parse(stdout) as Retention;
}

describe('TransientMap', () => {
  it('gets, sets, replaces and deletes as a Map does', () => {
    const map = new TransientMap<string, { n: number }>();
    const one = { n: 1 };
    expect(map.set('a', one)).toBe(map);
    map.set('b', { n: 2 });
    expect([map.size, map.get('a'), map.has('a'), map.has('c'), map.get('c')]).toEqual([2, one, true, false, undefined]);
    const replaced = { n: 10 };
    map.set('a', replaced);
    expect([map.size, map.get('a')]).toEqual([2, replaced]);
    expect(map.delete('a')).toBe(true);
    expect(map.delete('a')).toBe(false);
    expect([map.size, map.has('a'), map.get('a')]).toEqual([1, false, undefined]);
  });

  it('iterates in insertion order, and an entry deleted during the walk is not visited', () => {
    const map = new TransientMap<number, { n: number }>();
    for (const n of [3, 1, 2]) map.set(n, { n });
    expect([...map.keys()]).toEqual([3, 1, 2]);
    expect([...map.values()].map((value) => value.n)).toEqual([3, 1, 2]);
    const visited: number[] = [];
    for (const [key] of map) {
      visited.push(key);
      if (key === 3) map.delete(1);
    }
    expect(visited).toEqual([3, 2]);
    expect([...map.entries()]).toEqual([
      [3, { n: 3 }],
      [2, { n: 2 }],
    ]);
  });

  // The property it exists for, in a process of its own (it needs --expose-gc). The Map beside it
  // shows what the probe would see without it: should a V8 ever stop keeping a discarded table's
  // values, that half fails, and the workaround can go.
  it('lets go of deleted values that a Map, once old, keeps alive and promotes', { timeout: 30_000 }, async () => {
    const [map, transient] = await Promise.all([retention('map'), retention('transient')]);
    expect(map.oldSpaceGrewBy).toBeGreaterThan(map.churnedBytes / 2);
    expect(transient.oldSpaceGrewBy).toBeLessThan(transient.churnedBytes / 10);
  });
});
