// docs/reference/metrics.md, from the registry the gateway builds (src/observe/metrics.ts, created
// as main.ts creates it, with endpoints on so every label shows): each metric's name, type, help,
// labels and buckets as registered, and what each label means from src/observe/metric-docs.ts.
// A metric added to the registry appears here without touching this file.
import { collectDefaultMetrics, Registry } from 'prom-client';
import { METRIC_DOCS } from '../../src/observe/metric-docs.js';
import { GatewayMetrics } from '../../src/observe/metrics.js';
import { generatedNotice, isMain, runGenerator, type GeneratedFiles } from './lib/generated-files.js';
import { code, headingSlug, table } from './lib/markdown.js';

export const METRICS_PAGE = 'docs/reference/metrics.md';

/** What the reference reads of one registered metric: prom-client's fields, which hot-metrics.ts shares. */
interface RegisteredMetric {
  readonly name: string;
  readonly help: string;
  readonly type: string;
  readonly labelNames?: readonly string[];
  readonly buckets?: readonly number[];
}

/** The gateway's own metrics, in the order they are registered: the registry less prom-client's defaults. */
function gatewayMetrics(): RegisteredMetric[] {
  const metrics = new GatewayMetrics({ sessions: { count: () => Promise.resolve(0) }, endpoints: true });
  const defaults = new Registry();
  collectDefaultMetrics({ register: defaults });
  const defaultNames = new Set(defaults.getMetricsAsArray().map((metric) => metric.name));
  return (metrics.registry.getMetricsAsArray() as unknown as RegisteredMetric[]).filter((metric) => !defaultNames.has(metric.name));
}

/** Throws on a label with no meaning in METRIC_DOCS, or an entry the registry does not match. */
function checkDocs(metrics: readonly RegisteredMetric[]): void {
  const problems: string[] = [];
  const byName = new Map(metrics.map((metric) => [metric.name, metric]));
  for (const metric of metrics) {
    for (const label of metric.labelNames ?? []) {
      if (METRIC_DOCS[metric.name]?.labels?.[label] === undefined) problems.push(`${metric.name}: label ${label} has no meaning in src/observe/metric-docs.ts`);
    }
  }
  for (const [name, doc] of Object.entries(METRIC_DOCS)) {
    const metric = byName.get(name);
    if (!metric) problems.push(`src/observe/metric-docs.ts describes ${name}, which is not registered`);
    for (const label of Object.keys(doc.labels ?? {})) {
      if (metric && !metric.labelNames?.includes(label)) problems.push(`src/observe/metric-docs.ts describes label ${label} of ${name}, which has no such label`);
    }
  }
  if (problems.length > 0) throw new Error(problems.join('\n'));
}

function section(metric: RegisteredMetric): string {
  const doc = METRIC_DOCS[metric.name];
  const type = `${metric.type[0]!.toUpperCase()}${metric.type.slice(1)}`;
  const parts = [`## ${code(metric.name)}`, `${type}. ${metric.help}.`];
  const labels = metric.labelNames ?? [];
  if (labels.length > 0) parts.push(table(['Label', 'Meaning'], labels.map((label) => [code(label), doc?.labels?.[label] ?? ''])));
  if (metric.type === 'histogram' && metric.buckets) {
    parts.push(`Buckets (upper bounds, \`+Inf\` besides): ${metric.buckets.map(code).join(', ')}.`);
  }
  if (doc?.note !== undefined) parts.push(doc.note);
  return parts.join('\n\n');
}

export function metricsPage(): string {
  const metrics = gatewayMetrics();
  checkDocs(metrics);
  const summary = table(
    ['Metric', 'Type', 'Labels'],
    metrics.map((metric) => [`[${code(metric.name)}](#${headingSlug(code(metric.name))})`, metric.type, (metric.labelNames ?? []).map(code).join(', ')]),
  );
  return [
    generatedNotice('scripts/docs/metrics.ts', ['src/observe/metrics.ts', 'src/observe/metric-docs.ts']),
    '',
    '# Metrics',
    '',
    '`GET /metrics` on the gateway\'s port answers in the Prometheus text format, from a registry of the',
    'gateway\'s own (nothing else in the process writes into it). Every label has a bounded set of values',
    'whatever clients send: labels never carry tool arguments, tool names, URIs, tokens or session ids.',
    '',
    summary,
    '',
    ...metrics.flatMap((metric) => [section(metric), '']),
    '## Process and Node.js metrics',
    '',
    'prom-client\'s [default metrics](https://github.com/siimon/prom-client#default-metrics) (`process_*`,',
    '`nodejs_*`): CPU, memory, event-loop lag, garbage collection, handles. Which of them appear depends on',
    'the platform (the file-descriptor ones are Linux only).',
    '',
  ].join('\n');
}

export function generate(): GeneratedFiles {
  return new Map([[METRICS_PAGE, metricsPage()]]);
}

if (isMain(import.meta.url)) await runGenerator(generate);
