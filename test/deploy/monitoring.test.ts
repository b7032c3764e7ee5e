// The Grafana dashboard and the Prometheus alert rules under deploy/monitoring, against a live
// gateway's /metrics: every query parses as PromQL (Prometheus' own grammar), and every metric and
// label it selects is one the gateway exports. A real upstream and one tools/call through the
// gateway first, so the labelled series exist; and the calls a client can make to fire an alert
// without any upstream failing (an unknown tool or method, a call the policy denies), which the
// error-rate alert must not count.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { connectV2 } from '../support/mcp-clients.js';
import { everythingStdio } from '../support/upstreams.js';
import { familyOf, parseExposition, seriesOf, type MetricFamily } from './support/exposition.js';
import { analysePromql, selects, withGrafanaVariablesFilled } from './support/promql.js';
import { isPlainObject, MONITORING_DIR, readJson, readYaml, type PlainObject } from './support/repo.js';

const DASHBOARD_FILE = join(MONITORING_DIR, 'grafana-dashboard.json');
const ALERTS_FILE = join(MONITORING_DIR, 'switchboard-alerts.yaml');
/** Labels that Prometheus adds to every scraped series: not on /metrics, fine to match on. */
const TARGET_LABELS = new Set(['job', 'instance', 'namespace', 'pod', 'service', 'container', 'endpoint']);
/** The metrics the contract names. */
const CONTRACT_METRICS = [
  'switchboard_rpc_requests_total',
  'switchboard_rpc_duration_seconds',
  'switchboard_upstream_up',
  'switchboard_sessions_active',
  'switchboard_notifications_forwarded_total',
];
const DURATION = /^\d+(ms|s|m|h|d|w|y)$/;

interface Query {
  readonly where: string;
  readonly expr: string;
}

function dashboard(): PlainObject {
  const parsed = readJson(DASHBOARD_FILE);
  if (!isPlainObject(parsed)) throw new Error('the dashboard is not a JSON object');
  return parsed;
}

function panelsOf(container: PlainObject): PlainObject[] {
  const panels = Array.isArray(container.panels) ? container.panels.filter(isPlainObject) : [];
  return panels.flatMap((panel) => [panel, ...panelsOf(panel)]);
}

/** Panel targets, and the metric selector of each `label_values(selector, label)` variable. */
function dashboardQueries(): Query[] {
  const board = dashboard();
  const fromPanels = panelsOf(board).flatMap((panel) =>
    (Array.isArray(panel.targets) ? panel.targets.filter(isPlainObject) : []).map((target) => ({
      where: `panel "${String(panel.title)}" ${String(target.refId)}`,
      expr: withGrafanaVariablesFilled(String(target.expr)),
    })),
  );
  const templating = isPlainObject(board.templating) ? board.templating : {};
  const variables = Array.isArray(templating.list) ? templating.list.filter(isPlainObject) : [];
  const fromVariables = variables
    .filter((variable) => variable.type === 'query')
    .map((variable) => {
      const query = isPlainObject(variable.query) ? String(variable.query.query) : String(variable.query);
      const selector = /^label_values\((.+),\s*[a-zA-Z_]\w*\)$/.exec(query)?.[1];
      return { where: `variable $${String(variable.name)}`, expr: selector ?? query };
    });
  return [...fromPanels, ...fromVariables];
}

function alertRules(): PlainObject[] {
  const file = readYaml(ALERTS_FILE);
  const groups = isPlainObject(file) && Array.isArray(file.groups) ? file.groups.filter(isPlainObject) : [];
  return groups.flatMap((group) => (Array.isArray(group.rules) ? group.rules.filter(isPlainObject) : []));
}

function alertQueries(): Query[] {
  return alertRules().map((rule) => ({ where: `alert ${String(rule.alert)}`, expr: String(rule.expr) }));
}

function syntaxProblems(queries: readonly Query[]): string[] {
  return queries.flatMap(({ where, expr }) => analysePromql(expr).errors.map((error) => `${where}: ${error} in ${expr}`));
}

function unknownMetrics(queries: readonly Query[], families: ReadonlyMap<string, MetricFamily>): string[] {
  return queries.flatMap(({ where, expr }) =>
    analysePromql(expr)
      .selectors.filter(({ metric }) => familyOf(families, metric) === undefined)
      .map(({ metric }) => `${where}: ${metric || '(no metric name)'}`),
  );
}

/** Labels matched on that the metric's samples do not carry (for metrics that have samples). */
function unknownLabels(queries: readonly Query[], families: ReadonlyMap<string, MetricFamily>): string[] {
  return queries.flatMap(({ where, expr }) =>
    analysePromql(expr).selectors.flatMap(({ metric, labels }) => {
      const family = familyOf(families, metric);
      if (family === undefined || family.sampleCount === 0) return [];
      return labels
        .filter((label) => !TARGET_LABELS.has(label) && !family.labelNames.has(label))
        .map((label) => `${where}: ${metric}{${label}}`);
    }),
  );
}

function selectedMetrics(queries: readonly Query[]): Set<string> {
  return new Set(queries.flatMap(({ expr }) => analysePromql(expr).selectors.map(({ metric }) => metric)));
}

describe('the dashboard and the alert rules', () => {
  let gateway: TestGateway;
  let metricsStatus: number;
  let families: Map<string, MetricFamily>;
  let requestSeries: Record<string, string>[];

  beforeAll(async () => {
    gateway = await startGateway({
      mcpServers: { everything: everythingStdio() },
      policy: { default: 'allow', rules: [{ when: {}, deny: ['everything/get-env'] }] },
    });
    const client = await connectV2(gateway.url);
    try {
      await client.request('tools/call', { name: 'everything__echo', arguments: { message: 'metrics' } });
      for (const [method, params] of [
        ['tools/call', { name: 'nowhere__nothing', arguments: {} }],
        ['no/such-method', {}],
        ['tools/call', { name: 'everything__get-env', arguments: {} }],
      ] as const) {
        await expect(client.request(method, params)).rejects.toThrow();
      }
    } finally {
      await client.close();
    }
    const response = await fetch(new URL('/metrics', gateway.url));
    metricsStatus = response.status;
    const text = await response.text();
    families = parseExposition(text);
    requestSeries = seriesOf(text, 'switchboard_rpc_requests_total');
  });

  afterAll(async () => {
    await gateway?.close();
  });

  it('are checked against a /metrics that answers with the contract metrics and labelled request series', () => {
    expect(metricsStatus).toBe(200);
    expect(CONTRACT_METRICS.filter((name) => !families.has(name))).toEqual([]);
    const requestLabels = [...(families.get('switchboard_rpc_requests_total')?.labelNames ?? [])];
    expect(requestLabels).toEqual(expect.arrayContaining(['method', 'server', 'outcome']));
  });

  it('have a dashboard that parses, with a uid, a title and a unique id for each panel', () => {
    const board = dashboard();
    expect(board).toMatchObject({ uid: expect.any(String), title: 'Switchboard' });
    const ids = panelsOf(board).map((panel) => panel.id);
    expect(ids.length).toBeGreaterThan(10);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('have a dashboard that links to the status page through a URL variable the operator sets', () => {
    const board = dashboard();
    const links = Array.isArray(board.links) ? board.links.filter(isPlainObject) : [];
    const templating = isPlainObject(board.templating) ? board.templating : {};
    const variables = Array.isArray(templating.list) ? templating.list.filter(isPlainObject) : [];
    const statusUrl = variables.find((variable) => variable.name === 'status_url');
    expect(statusUrl).toMatchObject({ type: 'textbox', query: expect.stringMatching(/^http:\/\/127\.0\.0\.1:8081\/status$/) });
    expect(links).toContainEqual(expect.objectContaining({ type: 'link', url: '${status_url}', targetBlank: true }));
  });

  it('have a dashboard whose queries are all valid PromQL', () => {
    expect(dashboardQueries().length).toBeGreaterThan(10);
    expect(syntaxProblems(dashboardQueries())).toEqual([]);
  });

  it('have a dashboard whose queries name only metrics the gateway exports', () => {
    expect(unknownMetrics(dashboardQueries(), families)).toEqual([]);
  });

  it('have a dashboard whose queries match only on labels those metrics carry', () => {
    expect(unknownLabels(dashboardQueries(), families)).toEqual([]);
  });

  it('have a dashboard that charts every metric the contract names', () => {
    const charted = selectedMetrics(dashboardQueries());
    const missing = CONTRACT_METRICS.filter((name) => ![...charted].some((metric) => metric === name || metric.startsWith(`${name}_`)));
    expect(missing).toEqual([]);
  });

  it('have alert rules that each carry a name, an expression, a for duration, a severity, a summary and a description', () => {
    const rules = alertRules();
    expect(rules.length).toBeGreaterThanOrEqual(4);
    for (const rule of rules) {
      expect(rule, String(rule.alert)).toMatchObject({
        alert: expect.stringMatching(/^Switchboard[A-Za-z]+$/),
        expr: expect.any(String),
        for: expect.stringMatching(DURATION),
        labels: { severity: expect.stringMatching(/^(critical|warning|info)$/) },
        annotations: { summary: expect.any(String), description: expect.any(String) },
      });
    }
    const names = rules.map((rule) => rule.alert);
    expect(new Set(names).size).toBe(names.length);
  });

  it('have alert expressions that are all valid PromQL', () => {
    expect(syntaxProblems(alertQueries())).toEqual([]);
  });

  it('have alert expressions that name only metrics the gateway exports, and labels they carry', () => {
    expect(unknownMetrics(alertQueries(), families)).toEqual([]);
    expect(unknownLabels(alertQueries(), families)).toEqual([]);
  });

  it("count in the error-rate alert only requests that reached an upstream, never unknown tools or methods (server=\"\") nor denied ones", () => {
    const rule = alertRules().find((candidate) => candidate.alert === 'SwitchboardHighErrorRate');
    const selectors = analysePromql(String(rule?.expr)).selectors.filter(({ metric }) => metric === 'switchboard_rpc_requests_total');
    // What the alert must leave out is there to be left out: the gateway's own errors and a denial.
    expect(requestSeries.filter((series) => series.server === '' && series.outcome === 'error').length).toBeGreaterThanOrEqual(1);
    expect(requestSeries.filter((series) => series.outcome === 'denied')).not.toEqual([]);
    const [errors, ...totals] = selectors;
    expect(errors?.matchers).toContainEqual({ label: 'outcome', op: '=', value: 'error' });
    expect(totals.length).toBeGreaterThanOrEqual(1);
    for (const selector of selectors) {
      const selected = requestSeries.filter((series) => selects(selector, series));
      expect(selected.filter((series) => series.server === '' || series.outcome === 'denied')).toEqual([]);
    }
    // The denominators count every request the numerator does, and the upstream's answered ones.
    for (const total of totals) {
      expect(requestSeries.filter((series) => selects(errors!, series) && !selects(total, series))).toEqual([]);
      expect(requestSeries.filter((series) => selects(total, series))).toContainEqual(expect.objectContaining({ server: 'everything', outcome: 'ok' }));
    }
  });

  it('alert on upstreams down, error rate, latency and sessions', () => {
    const byMetric = (metric: string) => alertQueries().filter(({ expr }) => selectedMetrics([{ where: '', expr }]).has(metric));
    expect(byMetric('switchboard_upstream_up')).not.toEqual([]);
    expect(byMetric('switchboard_rpc_requests_total').filter(({ expr }) => expr.includes('outcome="error"'))).not.toEqual([]);
    expect(byMetric('switchboard_rpc_duration_seconds_bucket')).not.toEqual([]);
    expect(byMetric('switchboard_sessions_active')).not.toEqual([]);
  });
});
