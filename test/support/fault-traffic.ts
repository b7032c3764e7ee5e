// Steady client traffic through gateways while their Redis is taken away: each client session
// calls the tally fixture's `record` tool every ~20 ms with a key of its own, and every answer is
// kept (status, Retry-After, error message, how long it took), so a test can say what clients saw
// during the outage and compare it with what reached the upstream.
import { setTimeout as sleep } from 'node:timers/promises';
import { MCP_ACCEPT, openSession } from './raw-http.js';

/** Longer than any bounded wait of the gateway (a 2 s command timeout): an answer slower than this hung. */
const HUNG_MS = 8_000;

export interface Answer {
  readonly key: string;
  readonly client: number;
  /** The gateway endpoint that was asked. */
  readonly url: string;
  /** 0: no answer within HUNG_MS (or the connection failed). */
  readonly status: number;
  readonly retryAfter: string | null;
  readonly errorMessage: string | undefined;
  readonly startedAt: number;
  readonly ms: number;
}

export interface TrafficClient {
  /** The gateway endpoints this client's calls go to, in turn (a load balancer without stickiness). */
  readonly urls: readonly string[];
  sessionId: string;
}

export class FaultTraffic {
  readonly answers: Answer[] = [];
  #running = false;
  #loops: Promise<void>[] = [];

  constructor(
    readonly clients: readonly TrafficClient[],
    private readonly intervalMs = 20,
  ) {}

  /** One client per session, each opened on the first of `urls`. */
  static async open(urls: readonly string[], count: number, intervalMs = 20): Promise<FaultTraffic> {
    const clients: TrafficClient[] = [];
    for (let index = 0; index < count; index++) {
      const first = urls[index % urls.length]!;
      clients.push({ urls: [first, ...urls.filter((url) => url !== first)], sessionId: (await openSession(first)).sessionId });
    }
    return new FaultTraffic(clients, intervalMs);
  }

  start(): void {
    this.#running = true;
    this.#loops = this.clients.map((client, index) => this.#loop(client, index));
  }

  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#loops);
  }

  /** The answers that are not 2xx. */
  get failures(): Answer[] {
    return this.answers.filter((answer) => answer.status < 200 || answer.status >= 300);
  }

  /** Whether every client has had a 2xx answer to a call started after `since`, from each of its gateways. */
  allAnsweredSince(since: number): boolean {
    return this.clients.every((client, index) =>
      client.urls.every((url) => this.answers.some((answer) => answer.client === index && answer.url === url && answer.startedAt >= since && answer.status === 200)),
    );
  }

  async #loop(client: TrafficClient, index: number): Promise<void> {
    let sequence = 0;
    while (this.#running) {
      const key = `${index}-${sequence++}`;
      const url = client.urls[sequence % client.urls.length]!;
      this.answers.push(await call(url, client.sessionId, key, index));
      await sleep(this.intervalMs);
    }
  }
}

export async function call(url: string, sessionId: string, key: string, client = 0): Promise<Answer> {
  const startedAt = Date.now();
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { accept: MCP_ACCEPT, 'content-type': 'application/json', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: key, method: 'tools/call', params: { name: 'tally__record', arguments: { key } } }),
      signal: AbortSignal.timeout(HUNG_MS),
    });
    const body = (await response.json().catch(() => undefined)) as { error?: { message?: string } } | undefined;
    return {
      key,
      client,
      url,
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      errorMessage: body?.error?.message,
      startedAt,
      ms: Date.now() - startedAt,
    };
  } catch {
    return { key, client, url, status: 0, retryAfter: null, errorMessage: undefined, startedAt, ms: Date.now() - startedAt };
  }
}

/** How many times the tally upstream behind `url` recorded each key (asked through a fresh session). */
export async function tally(url: string): Promise<Record<string, number>> {
  const { sessionId } = await openSession(url);
  const response = await fetch(url, {
    method: 'POST',
    headers: { accept: MCP_ACCEPT, 'content-type': 'application/json', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'tally__tally', arguments: {} } }),
  });
  const body = (await response.json()) as { result: { content: { text: string }[] } };
  return JSON.parse(body.result.content[0]!.text) as Record<string, number>;
}

/**
 * The calls that reached the upstream other than they should have: a call answered 2xx exactly
 * once, one answered otherwise (503, 404) never. `counts` is the tally of the upstream behind each
 * gateway endpoint (each replica has its own). A call without an answer (status 0) could be either.
 */
export function doneOtherThanOnce(answers: readonly Answer[], counts: Readonly<Record<string, Record<string, number>>>): string[] {
  const wrong: string[] = [];
  for (const { key, status, url } of answers) {
    if (status === 0) continue;
    const expected = status >= 200 && status < 300 ? 1 : 0;
    const recorded = counts[url]?.[key] ?? 0;
    if (recorded !== expected) wrong.push(`${key} (${status} from ${url}): recorded ${recorded} times`);
  }
  return wrong;
}

/** A compact account of the answers for a failing assertion: status -> count, and the slowest. */
export function describeAnswers(answers: readonly Answer[]): string {
  const byStatus = new Map<number, number>();
  for (const { status } of answers) byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  const slowest = Math.max(0, ...answers.map(({ ms }) => ms));
  return `${[...byStatus].map(([status, count]) => `${status}: ${count}`).join(', ')}; slowest ${slowest} ms`;
}
