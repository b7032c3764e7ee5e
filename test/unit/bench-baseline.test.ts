// `npm run bench -- --compare` with no path weighs a run against bench/baseline.json, the one run
// the repository keeps. The bench is not run in CI, so this holds the baseline readable by the
// bench as it is now: a change to the results format must come with a new baseline.
import { describe, expect, it } from 'vitest';

import { compareResults } from '../../bench/compare.js';
import { BASELINE, parseOptions } from '../../bench/options.js';
import { readResults } from '../../bench/results-json.js';

describe('the bench baseline', () => {
  it('is what --compare reads when it names no run, before another option or at the end', () => {
    expect(parseOptions(['--compare'], 'latest.json').comparePath).toBe(BASELINE);
    expect(parseOptions(['--compare', '--only', 'echo'], 'latest.json').comparePath).toBe(BASELINE);
    expect(parseOptions(['--compare', 'other.json'], 'latest.json').comparePath).toBe('other.json');
  });

  it('is a full run in the format the bench reads, with every ratio judged', () => {
    const baseline = readResults(BASELINE);
    expect(baseline.source?.dirty).toBe(false);
    expect(baseline.verdicts.length).toBeGreaterThanOrEqual(27);
    expect(baseline.verdicts.every((verdict) => verdict.raw !== undefined)).toBe(true);
    const report = compareResults(baseline, baseline);
    expect(report).toContain('gw-stdio-2025 vs floor: throughput at 50 in flight');
    expect(report).toContain('echo light 50 concurrent');
  });
});
