// PromQL read by Prometheus' own grammar (@prometheus-io/lezer-promql, the parser of the Prometheus
// web UI): syntax errors, and the metric and label matchers of each selector in an expression, which
// selects() applies to a live /metrics' series (exposition.ts, seriesOf).
import { parser } from '@prometheus-io/lezer-promql';

export interface Selector {
  readonly metric: string;
  /** Label names in the selector's matchers: `outcome` in `x{outcome="error"}`. */
  readonly labels: readonly string[];
  /** The matchers themselves, in order: `{ label: 'outcome', op: '=', value: 'error' }`. */
  readonly matchers: readonly Matcher[];
}

export interface Matcher {
  readonly label: string;
  readonly op: '=' | '!=' | '=~' | '!~';
  readonly value: string;
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
  const matchers: Matcher[] = [];
  for (const matcher of node.getChild('LabelMatchers')?.getChildren('UnquotedLabelMatcher') ?? []) {
    const [label, op, literal] = ['LabelName', 'MatchOp', 'StringLiteral'].map((name) => matcher.getChild(name));
    if (!label || !op || !literal) continue;
    matchers.push({
      label: text.slice(label.from, label.to),
      op: text.slice(op.from, op.to) as Matcher['op'],
      // A PromQL string is a Go string literal; the ones in our rules are JSON-compatible.
      value: JSON.parse(text.slice(literal.from, literal.to)) as string,
    });
  }
  return { metric: metricNode === null ? '' : text.slice(metricNode.from, metricNode.to), labels: matchers.map(({ label }) => label), matchers };
}

/** Whether a series (its labels; one it lacks counts as "") is selected by the selector's matchers, as Prometheus decides. */
export function selects(selector: Selector, labels: Readonly<Record<string, string>>): boolean {
  return selector.matchers.every(({ label, op, value }) => {
    const actual = labels[label] ?? '';
    // Prometheus anchors its regular expressions at both ends.
    const regex = () => new RegExp(`^(?:${value})$`).test(actual);
    return op === '=' ? actual === value : op === '!=' ? actual !== value : op === '=~' ? regex() : !regex();
  });
}
