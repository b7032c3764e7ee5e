// Run by test/unit/transient-map.test.ts in a process of its own with --expose-gc: churns 5,000
// request-sized values through a map whose table a full collection has made old, as a gateway's
// maps of requests in flight are once it has run a while, then prints how much the old generation
// grew through the young collections alone. Values a discarded table keeps alive are promoted
// there; values nobody holds are not. `map-retention-probe.ts map|transient`.
import { getHeapSpaceStatistics } from 'node:v8';
import { TransientMap } from '../../src/support/transient-map.js';

type Gc = (options?: { type: 'minor' | 'major' }) => void;
const gc = (globalThis as { gc?: Gc }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

const LIVE = 50;
const CHURNED = 5_000;

/** About 3 KB over a hundred objects: a request's callbacks, exchange and buffers stand-in. */
function request(n: number): object {
  return { n, parts: Array.from({ length: 100 }, (_, index) => ({ index })) };
}

function oldSpaceUsed(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')?.space_used_size ?? 0;
}

const kind = process.argv[2];
if (kind !== 'map' && kind !== 'transient') throw new Error('usage: map-retention-probe.ts map|transient');
const map = kind === 'map' ? new Map<number, object>() : new TransientMap<number, object>();
for (let n = 0; n < LIVE; n++) map.set(n, request(n));
gc();
const before = oldSpaceUsed();
for (let n = LIVE; n < CHURNED; n++) {
  map.set(n, request(n));
  map.delete(n - LIVE);
}
// Twice: a survivor of the first is promoted by the second.
gc({ type: 'minor' });
gc({ type: 'minor' });
process.stdout.write(`${JSON.stringify({ oldSpaceGrewBy: oldSpaceUsed() - before, churnedBytes: (CHURNED - LIVE) * 3_200 })}\n`);
