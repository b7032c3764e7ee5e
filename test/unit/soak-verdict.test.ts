import { describe, expect, it } from 'vitest';

import { fitLine, judgeSeries, type Point, type SeriesRule } from '../../bench/soak-verdict.js';

const MB = 1024 * 1024;
const HEAP: SeriesRule = { name: 'heap', unit: 'bytes', absolute: 2 * MB, relative: 0.05 };

function series(count: number, value: (index: number) => number): Point[] {
  return Array.from({ length: count }, (_, index) => ({ t: index * 30, value: value(index) }));
}

describe('the soak verdict', () => {
  it('fits a least-squares line', () => {
    expect(fitLine([{ t: 0, value: 1 }, { t: 1, value: 3 }, { t: 2, value: 5 }])).toEqual({ slope: 2, intercept: 1 });
  });

  it('calls a series flat when it grew in the first half (warm-up) and then stayed, whatever its spikes', () => {
    const points = series(40, (index) => (index < 10 ? 20 * MB + index * MB : 30 * MB) + (index === 30 ? 8 * MB : 0) + (index % 2) * 0.5 * MB);
    expect(judgeSeries(HEAP, points).flat).toBe(true);
  });

  it('calls a steady climb in the second half growing, even under noise', () => {
    // 0.2 MB per sample: 4 MB across the second half, noise of 1 MB either way.
    const points = series(40, (index) => 30 * MB + index * 0.2 * MB + (index % 3 === 0 ? MB : -MB));
    const verdict = judgeSeries(HEAP, points);
    expect(verdict.flat).toBe(false);
    expect(verdict.growth).toBeGreaterThan(3 * MB);
  });

  it('scales the limit with the level when the share is larger than the absolute allowance', () => {
    expect(judgeSeries(HEAP, series(10, () => 100 * MB)).limit).toBe(5 * MB);
  });

  it('does not judge fewer than three samples in the second half', () => {
    expect(judgeSeries(HEAP, series(4, (index) => index * MB)).flat).toBeUndefined();
  });
});
