// A counter and a histogram for the metrics every request updates. prom-client validates and hashes
// the labels object on each inc() and observe(), for each of the three series a tool call touches
// (docs/decisions/0005-hot-metrics.md). Here label values lead down a tree of Maps to their
// series' cell once, and counting is a field update. The
// registry still writes the exposition: these answer its get() as prom-client's own metrics do,
// so the text Prometheus scrapes is the same, line for line.
import type { Metric, Registry } from 'prom-client';

type Labels<N extends string> = Record<N, string>;

/** The series of one set of label values; `labels` is what the exposition prints. */
interface Series<N extends string> {
  readonly labels: Readonly<Labels<N>>;
}

/** Series by their label values, in the order of the metric's label names. */
class SeriesTree<N extends string, S extends Series<N>> {
  #root = new Map<string, unknown>();
  #all: S[] = [];

  constructor(
    private readonly labelNames: readonly N[],
    private readonly create: (labels: Labels<N>) => S,
  ) {}

  /** The series of these label values, created on first use; as many values as label names. */
  find(values: readonly string[]): S {
    let node = this.#root;
    const last = this.labelNames.length - 1;
    for (let depth = 0; depth < last; depth++) {
      let next = node.get(values[depth]!) as Map<string, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        node.set(values[depth]!, next);
      }
      node = next;
    }
    const found = node.get(values[last]!) as S | undefined;
    if (found !== undefined) return found;
    if (values.length !== this.labelNames.length) throw new Error(`expected ${this.labelNames.length} label values, got ${values.length}`);
    const labels = {} as Labels<N>;
    this.labelNames.forEach((name, index) => (labels[name] = values[index]!));
    const series = this.create(labels);
    node.set(values[last]!, series);
    this.#all.push(series);
    return series;
  }

  get all(): readonly S[] {
    return this.#all;
  }

  clear(): void {
    this.#root = new Map();
    this.#all = [];
  }
}

interface MetricShape<N extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly N[];
  readonly registers: readonly Registry[];
}

/**
 * What both kinds share: the name and help the exposition prints, the series by label values, and
 * registration with prom-client's registries, which take any object that answers get() and reset().
 */
abstract class HotMetric<N extends string, S extends Series<N>> {
  readonly aggregator = 'sum';
  /** Not readonly: a registry writing OpenMetrics renames counters (drops `_total`). */
  name: string;
  readonly help: string;
  /** As prom-client's metrics have them: what the reference (scripts/docs/metrics.ts) reads. */
  readonly labelNames: readonly N[];
  protected readonly seriesTree: SeriesTree<N, S>;

  constructor({ name, help, labelNames, registers }: MetricShape<N>) {
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
    this.seriesTree = new SeriesTree(labelNames, (labels) => this.newSeries(labels));
    for (const registry of registers) registry.registerMetric(this as unknown as Metric);
  }

  /** Every series so far, in the order they were first used. */
  get series(): readonly Readonly<S>[] {
    return this.seriesTree.all;
  }

  reset(): void {
    this.seriesTree.clear();
  }

  protected abstract newSeries(labels: Labels<N>): S;
}

export interface CounterSeries<N extends string> extends Series<N> {
  value: number;
}

/** A counter with labels; `inc('tools/call', 'everything', ...)` takes values in labelNames' order. */
export class HotCounter<N extends string> extends HotMetric<N, CounterSeries<N>> {
  readonly type = 'counter';

  inc(...values: string[]): void {
    this.seriesTree.find(values).value += 1;
  }

  /** What prom-client's Registry reads at scrape time. */
  get(): Promise<{ name: string; help: string; type: 'counter'; aggregator: 'sum'; values: { labels: Labels<N>; value: number }[] }> {
    const values = this.seriesTree.all.map(({ labels, value }) => ({ labels: { ...labels }, value }));
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  protected newSeries(labels: Labels<N>): CounterSeries<N> {
    return { labels, value: 0 };
  }
}

export interface HistogramSeries<N extends string> extends Series<N> {
  /** Observations per bucket, not cumulative: counts[i] fell in (bounds[i-1], bounds[i]]; the last is +Inf. */
  readonly counts: number[];
  sum: number;
  count: number;
}

/** A histogram with labels; `observe(value, 'tools/call', 'everything')`. */
export class HotHistogram<N extends string> extends HotMetric<N, HistogramSeries<N>> {
  readonly type = 'histogram';
  /** The configured upper bounds, without +Inf, as prom-client's histograms keep them. */
  readonly buckets: readonly number[];
  /** Upper bounds, ascending, +Inf last. */
  readonly bounds: readonly number[];

  constructor(shape: MetricShape<N> & { readonly buckets: readonly number[] }) {
    super(shape);
    this.buckets = shape.buckets;
    this.bounds = [...shape.buckets, Number.POSITIVE_INFINITY];
  }

  observe(value: number, ...values: string[]): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const series = this.seriesTree.find(values);
    let bucket = 0;
    while (value > this.bounds[bucket]!) bucket++;
    series.counts[bucket]! += 1;
    series.sum += value;
    series.count += 1;
  }

  /**
   * What prom-client's Registry reads to write the exposition: its histograms' samples, `le` as
   * the sample's own label and the series' labels shared, so that each line reads
   * `name_bucket{le="0.005",method="tools/call",server="everything"} 3`, as theirs do.
   */
  getForPromString(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: HistogramSample<N>[] }> {
    const values: HistogramSample<N>[] = [];
    for (const series of this.seriesTree.all) {
      let cumulative = 0;
      this.bounds.forEach((bound, index) => {
        cumulative += series.counts[index]!;
        const le = bound === Number.POSITIVE_INFINITY ? '+Inf' : bound;
        values.push({ labels: { le }, sharedLabels: series.labels, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: {}, sharedLabels: series.labels, value: series.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels: series.labels, value: series.count, metricName: `${this.name}_count` });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  /** The same samples with each one's labels in one object, as prom-client's get() gives them. */
  async get(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: { labels: Record<string, string | number>; value: number; metricName: string }[] }> {
    const data = await this.getForPromString();
    return { ...data, values: data.values.map(({ labels, sharedLabels, value, metricName }) => ({ labels: { ...labels, ...sharedLabels }, value, metricName })) };
  }

  protected newSeries(labels: Labels<N>): HistogramSeries<N> {
    return { labels, counts: this.bounds.map(() => 0), sum: 0, count: 0 };
  }
}

interface HistogramSample<N extends string> {
  readonly labels: { le?: number | string };
  readonly sharedLabels: Readonly<Labels<N>>;
  readonly value: number;
  readonly metricName: string;
}
