// Reads a gateway's /metrics: the samples of the Prometheus text format, and the value of one series.

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Scrape {
  readonly status: number;
  readonly contentType: string | null;
  readonly text: string;
  readonly samples: readonly Sample[];
  /** The sum of the samples named `name` whose labels include all of `labels` (0 when none). */
  value(name: string, labels?: Record<string, string>): number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export async function scrapeMetrics(gatewayUrl: string): Promise<Scrape> {
  const response = await fetch(new URL('/metrics', gatewayUrl));
  const text = await response.text();
  const samples = text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .flatMap((line) => {
      const match = SAMPLE.exec(line);
      if (!match) return [];
      const labels: Record<string, string> = {};
      for (const [, key, raw] of (match[2] ?? '').matchAll(LABEL)) labels[key!] = raw!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      return [{ name: match[1]!, labels, value: Number(match[3]) }];
    });
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    text,
    samples,
    value(name, wanted = {}) {
      return samples
        .filter((sample) => sample.name === name && Object.entries(wanted).every(([key, value]) => sample.labels[key] === value))
        .reduce((sum, sample) => sum + sample.value, 0);
    },
  };
}

export async function metricValue(gatewayUrl: string, name: string, labels?: Record<string, string>): Promise<number> {
  return (await scrapeMetrics(gatewayUrl)).value(name, labels);
}
