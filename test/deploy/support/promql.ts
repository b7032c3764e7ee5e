// PromQL read by Prometheus' own grammar (@prometheus-io/lezer-promql, the parser of the Prometheus
// web UI): syntax errors, and the metric and label names that an expression selects.
import { parser } from '@prometheus-io/lezer-promql';

export interface Selector {
  readonly metric: string;
  /** Label names in the selector's matchers: `outcome` in `x{outcome="error"}`. */
  readonly labels: readonly string[];
}

export interface PromqlAnalysis {
  /** Where the parser gave up, as `at <offset>: <the text there>`; empty for valid PromQL. */
  readonly errors: readonly string[];
  readonly selectors: readonly Selector[];
}

// Grafana fills these in before a query reaches Prometheus; any duration parses the same.
const GRAFANA_INTERVALS = /\$\{?__(rate_interval|interval|range)(_ms|_s)?\}?/g;

export function withGrafanaVariablesFilled(query: string): string {
  return query.replace(GRAFANA_INTERVALS, '5m');
}

export function analysePromql(expression: string): PromqlAnalysis {
  const tree = parser.parse(expression);
  const errors: string[] = [];
  const selectors: Selector[] = [];
  const cursor = tree.cursor();
  do {
    if (cursor.type.isError) {
      errors.push(`at ${cursor.from}: ${JSON.stringify(expression.slice(cursor.from, cursor.from + 20))}`);
    } else if (cursor.name === 'VectorSelector') {
      selectors.push(readSelector(cursor.node, expression));
    }
  } while (cursor.next());
  return { errors, selectors };
}

type SyntaxNode = ReturnType<typeof parser.parse>['topNode'];

function readSelector(node: SyntaxNode, text: string): Selector {
  const metricNode = node.getChild('Identifier');
  const labels: string[] = [];
  const matchers = node.getChild('LabelMatchers');
  if (matchers !== null) {
    const cursor = matchers.cursor();
    do {
      if (cursor.name === 'LabelName') labels.push(text.slice(cursor.from, cursor.to));
    } while (cursor.next() && cursor.to <= matchers.to);
  }
  return { metric: metricNode === null ? '' : text.slice(metricNode.from, metricNode.to), labels };
}
