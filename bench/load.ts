// The load: tools/call through the official v2 client, as deployed MCP clients send it. One Client
// is one MCP session (its own Mcp-Session-Id); the concurrent load gives each worker its own, since
// 50 agents behind one gateway are 50 sessions, not one session with 50 calls in flight.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const CLIENT_INFO = { name: 'switchboard-bench', version: '1.0.0' };
const ECHO_ARGUMENTS = { message: 'hello from the benchmark' };

export interface BenchClient {
  /** One tools/call of the echo tool; rejects on a protocol error or a result that is not the echo. */
  callEcho(): Promise<void>;
  close(): Promise<void>;
}

export interface PhaseResult {
  /** Latency of each successful call, in ms, in the order they finished. */
  readonly samples: number[];
  readonly errors: number;
  readonly firstError?: string;
  /** Wall time of the whole phase, in ms: throughput is calls / elapsed. */
  readonly elapsedMs: number;
  /** CPU time (ms) that each measured process (gateway, upstream) used during the phase, where it can be read (cpu-time.ts). */
  readonly cpuMs?: Readonly<Partial<Record<MeasuredProcess, number>>>;
}

export type MeasuredProcess = 'gateway' | 'upstream';

export async function connect(url: string, tool: string): Promise<BenchClient> {
  const client = new Client(CLIENT_INFO);
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return {
    async callEcho() {
      const result = await client.callTool({ name: tool, arguments: ECHO_ARGUMENTS });
      // Cheap, and it keeps an error result (isError, or the wrong tool answering) from passing as a fast call.
      const [first] = result.content;
      if (result.isError || first?.type !== 'text' || !first.text.includes(ECHO_ARGUMENTS.message)) {
        throw new Error(`unexpected result: ${JSON.stringify(result).slice(0, 200)}`);
      }
    },
    async close() {
      // DELETE the session, as a well-behaved client does, so the server frees it now rather than at its idle timeout.
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}

/** `count` sessions, opened a few at a time so that setting up does not look like a load spike. */
export async function connectMany(url: string, tool: string, count: number): Promise<BenchClient[]> {
  const clients: BenchClient[] = [];
  try {
    for (let i = 0; i < count; i += 10) {
      const batch = Array.from({ length: Math.min(10, count - i) }, () => connect(url, tool));
      clients.push(...(await Promise.all(batch)));
    }
    return clients;
  } catch (error) {
    await closeAll(clients);
    throw error;
  }
}

export async function closeAll(clients: readonly BenchClient[]): Promise<void> {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
}

/** `calls` calls, one after another, on one session: latency without queueing. */
export async function runSequential(client: BenchClient, calls: number): Promise<PhaseResult> {
  return runWorkers([client], calls, Number.POSITIVE_INFINITY);
}

/**
 * `clients.length` workers, each a loop of calls on its own session, taking calls from one shared
 * budget of `totalCalls` until it is spent or `maxDurationMs` has passed (a slow target must not
 * make the run unbounded). A closed loop: each worker waits for its answer before the next call,
 * so the offered load adapts to the target and the latency is what a busy client sees.
 */
export async function runConcurrent(clients: readonly BenchClient[], totalCalls: number, maxDurationMs: number): Promise<PhaseResult> {
  return runWorkers(clients, totalCalls, maxDurationMs);
}

async function runWorkers(clients: readonly BenchClient[], totalCalls: number, maxDurationMs: number): Promise<PhaseResult> {
  const samples: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let started = 0;
  const begin = performance.now();
  const deadline = begin + maxDurationMs;

  const worker = async (client: BenchClient): Promise<void> => {
    while (started < totalCalls && performance.now() < deadline) {
      started += 1;
      const t0 = performance.now();
      try {
        await client.callEcho();
        samples.push(performance.now() - t0);
      } catch (error) {
        errors += 1;
        firstError ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  await Promise.all(clients.map(worker));
  const elapsedMs = performance.now() - begin;
  return { samples, errors, elapsedMs, ...(firstError !== undefined && { firstError }) };
}

/** Several rounds of one kind of phase as one result: samples and errors add up, and so does time. */
export function combine(results: readonly PhaseResult[]): PhaseResult {
  const firstError = results.find((result) => result.firstError !== undefined)?.firstError;
  const cpuMs: Partial<Record<MeasuredProcess, number>> = {};
  for (const name of ['gateway', 'upstream'] as const) {
    const times = results.map((result) => result.cpuMs?.[name]);
    // A sum over only some rounds would be a wrong per-call figure; then there is none.
    if (times.every((ms) => ms !== undefined)) cpuMs[name] = times.reduce((total, ms) => total + ms, 0);
  }
  return {
    samples: results.flatMap((result) => result.samples),
    errors: results.reduce((total, result) => total + result.errors, 0),
    elapsedMs: results.reduce((total, result) => total + result.elapsedMs, 0),
    ...(firstError !== undefined && { firstError }),
    cpuMs,
  };
}
