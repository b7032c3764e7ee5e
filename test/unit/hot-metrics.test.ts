// HotCounter and HotHistogram stand in for prom-client's Counter and Histogram on the request path;
// Prometheus must not see the difference. The same observations go into both, each in a registry
// of its own, and the two expositions (and JSON readings) must be equal, byte for byte.
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { HotCounter, HotHistogram } from '../../src/observe/hot-metrics.js';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Label values a scrape must escape (a backslash, a quote, a newline) among plain ones. */
const SERVERS = ['everything', '', 'odd "name"\\with\nnewline'];
const OBSERVATIONS: readonly [method: string, server: string, outcome: string, seconds: number][] = [
  ['tools/call', 'everything', 'ok', 0.0012],
  ['tools/call', 'everything', 'ok', 0.005],
  ['tools/call', 'everything', 'error', 0.0051],
  ['tools/list', '', 'ok', 0.3],
  ['tools/call', SERVERS[2]!, 'denied', 1_000],
  ['ping', '', 'ok', 0],
  ['tools/call', 'everything', 'ok', 300],
];

function registries(): { theirs: Registry; ours: Registry } {
  const theirs = new Registry();
  const ours = new Registry();
  const help = 'requests, by method, server and outcome';
  const counter = new Counter({ name: 'x_requests_total', help, labelNames: ['method', 'server', 'outcome'], registers: [theirs] });
  const hotCounter = new HotCounter({ name: 'x_requests_total', help, labelNames: ['method', 'server', 'outcome'], registers: [ours] });
  const histogram = new Histogram({ name: 'x_duration_seconds', help: 'durations', labelNames: ['method', 'server'], buckets: BUCKETS, registers: [theirs] });
  const hotHistogram = new HotHistogram({ name: 'x_duration_seconds', help: 'durations', labelNames: ['method', 'server'], buckets: BUCKETS, registers: [ours] });
  for (const [method, server, outcome, seconds] of OBSERVATIONS) {
    counter.inc({ method, server, outcome });
    hotCounter.inc(method, server, outcome);
    histogram.observe({ method, server }, seconds);
    hotHistogram.observe(seconds, method, server);
  }
  return { theirs, ours };
}

describe('hot metrics', () => {
  it('expose the same text as prom-client for the same observations', async () => {
    const { theirs, ours } = registries();
    const expected = await theirs.metrics();
    expect(expected).toContain('x_duration_seconds_bucket{le="0.005",method="tools/call",server="everything"} 2');
    expect(await ours.metrics()).toBe(expected);
  });

  it('read the same as prom-client through the registry as JSON', async () => {
    const { theirs, ours } = registries();
    // prom-client's histogram samples carry `exemplar: null` (exemplars are off); ours have none.
    const withoutExemplars = (json: unknown) => JSON.parse(JSON.stringify(json, (key, value: unknown) => (key === 'exemplar' ? undefined : value))) as unknown;
    expect(withoutExemplars(await ours.getMetricsAsJSON())).toStrictEqual(withoutExemplars(await theirs.getMetricsAsJSON()));
  });

  it('keep the series each set of label values has, and their counts', () => {
    const counter = new HotCounter({ name: 'c_total', help: 'c', labelNames: ['a', 'b'], registers: [] });
    counter.inc('1', '2');
    counter.inc('1', '2');
    counter.inc('1', '3');
    expect(counter.series).toEqual([
      { labels: { a: '1', b: '2' }, value: 2 },
      { labels: { a: '1', b: '3' }, value: 1 },
    ]);
    const histogram = new HotHistogram({ name: 'h', help: 'h', labelNames: ['a'], buckets: [1, 2], registers: [] });
    histogram.observe(1, 'x');
    histogram.observe(1.5, 'x');
    histogram.observe(9, 'x');
    expect(histogram.series).toEqual([{ labels: { a: 'x' }, counts: [1, 1, 1], sum: 11.5, count: 3 }]);
  });

  it('refuse what prom-client refuses: a value that is not a finite number, a wrong number of labels', () => {
    const histogram = new HotHistogram({ name: 'h', help: 'h', labelNames: ['a'], buckets: [1], registers: [] });
    expect(() => histogram.observe(Number.NaN, 'x')).toThrow(/not a valid number/);
    expect(() => histogram.observe(Number.POSITIVE_INFINITY, 'x')).toThrow(/not a valid number/);
    const counter = new HotCounter({ name: 'c_total', help: 'c', labelNames: ['a', 'b'], registers: [] });
    expect(() => counter.inc('only one')).toThrow(/expected 2 label values, got 1/);
  });

  it('start again from nothing on reset', async () => {
    const { ours } = registries();
    ours.resetMetrics();
    expect(await ours.metrics()).toBe('# HELP x_requests_total requests, by method, server and outcome\n# TYPE x_requests_total counter\n\n# HELP x_duration_seconds durations\n# TYPE x_duration_seconds histogram\n');
  });
});
