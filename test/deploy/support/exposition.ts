// The Prometheus text format, read just far enough to ask what a live /metrics exports: each
// metric family's type, and the label names its samples carry; and a metric's series, by their labels.

export interface MetricFamily {
  readonly type: string;
  readonly labelNames: Set<string>;
  sampleCount: number;
}

const TYPE_LINE = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (\w+)$/;
const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? \S+( \d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*"/g;
const LABEL_VALUE = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
// Which family types have series with each suffix (the text format and OpenMetrics).
const SERIES_SUFFIXES: Readonly<Record<string, readonly string[]>> = {
  _bucket: ['histogram'],
  _sum: ['histogram', 'summary'],
  _count: ['histogram', 'summary'],
  _total: ['counter'],
  _created: ['counter', 'histogram', 'summary'],
};

export function parseExposition(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  for (const line of text.split('\n')) {
    const type = TYPE_LINE.exec(line);
    if (type !== null) {
      families.set(type[1]!, { type: type[2]!, labelNames: new Set(), sampleCount: 0 });
      continue;
    }
    const sample = SAMPLE_LINE.exec(line);
    if (sample === null) continue;
    const family = familyOf(families, sample[1]!);
    if (family === undefined) continue;
    family.sampleCount += 1;
    for (const [, name] of (sample[3] ?? '').matchAll(LABEL)) family.labelNames.add(name!);
  }
  return families;
}

/**
 * The family a series name belongs to: itself, or a histogram's or summary's family for its
 * `_bucket`/`_sum`/`_count` series. Undefined when /metrics has no such metric.
 */
export function familyOf(families: ReadonlyMap<string, MetricFamily>, seriesName: string): MetricFamily | undefined {
  const exact = families.get(seriesName);
  if (exact !== undefined) return exact;
  for (const [suffix, types] of Object.entries(SERIES_SUFFIXES)) {
    if (!seriesName.endsWith(suffix)) continue;
    const family = families.get(seriesName.slice(0, -suffix.length));
    if (family !== undefined && types.includes(family.type)) return family;
  }
  return undefined;
}

/** The label sets of the samples named exactly `seriesName` (escapes in values left as they are). */
export function seriesOf(text: string, seriesName: string): Record<string, string>[] {
  const series: Record<string, string>[] = [];
  for (const line of text.split('\n')) {
    const sample = SAMPLE_LINE.exec(line);
    if (sample === null || sample[1] !== seriesName) continue;
    series.push(Object.fromEntries([...(sample[3] ?? '').matchAll(LABEL_VALUE)].map(([, name, value]) => [name!, value!])));
  }
  return series;
}
