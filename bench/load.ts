// The load, whatever sends it: a set of callers, each a closed loop of calls, and what a phase of
// such calls measured. Three generators implement the callers: a light one (plain HTTP through
// undici, or the raw stdio pipe; light-load.ts), whose own cost is small enough not to hide the
// front's on a machine with few cores, and the official SDK clients v2 and v1 (sdk-load.ts), as
// deployed clients send.
import type { Operation } from './operations.js';
import type { Target } from './targets.js';

export interface BenchClient {
  /** One call of the group's operation; rejects on a protocol error or a wrong answer. */
  call(): Promise<void>;
  close(): Promise<void>;
}

/** Callers of one target, and what closing them all takes (sessions, connection pools). */
export interface ClientGroup {
  readonly clients: readonly BenchClient[];
  close(): Promise<void>;
}

export type LoadName = 'light' | 'sdk-v2' | 'sdk-v1';

export interface LoadGenerator {
  readonly name: LoadName;
  /** Whether this load can call `target` (an SDK client speaks HTTP only; v1 knows no 2026 requests). */
  supports(target: Target): boolean;
  /** `count` independent callers of `target`; for a 2025 HTTP target each has its own session. */
  open(target: Target, count: number, operation: Operation): Promise<ClientGroup>;
}

export interface PhaseResult {
  /** Latency of each successful call, in ms, in the order they finished. */
  readonly samples: number[];
  readonly errors: number;
  readonly firstError?: string;
  /** Wall time of the whole phase, in ms: throughput is calls / elapsed. */
  readonly elapsedMs: number;
  /** CPU time (ms) that each measured process used during the phase, where it can be read (cpu-time.ts). */
  readonly cpuMs?: Readonly<Partial<Record<MeasuredProcess, number>>>;
  /** The front's GC pauses and young-generation allocation during the phase (front-hooks.mjs), where the front has the hooks. */
  readonly frontGc?: { readonly ms: number; readonly major: number; readonly allocatedBytes: number };
}

/**
 * The front (gateway, mcp-proxy), the upstream (server-everything, the floor), this process, which
 * generates the load, and the machine: every CPU, whatever ran on it (cpu-time.ts, machineBusyMs).
 */
export type MeasuredProcess = 'front' | 'upstream' | 'load' | 'machine';
export const MEASURED_PROCESSES: readonly MeasuredProcess[] = ['front', 'upstream', 'load', 'machine'];

/**
 * One worker per client, each a loop of calls, taking calls from one shared budget of
 * `totalCalls` until it is spent or `maxDurationMs` has passed (a slow target must not make the
 * run unbounded). A closed loop: each worker waits for its answer before the next call, so the
 * offered load adapts to the target and the latency is what a busy client sees. One client is the
 * sequential case: latency without queueing.
 */
export async function runWorkers(clients: readonly BenchClient[], totalCalls: number, maxDurationMs: number): Promise<PhaseResult> {
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
        await client.call();
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

/** Opens `count` callers a few at a time, so that setting up does not look like a load spike; closes what opened if one fails. */
export async function openInBatches(count: number, open: () => Promise<BenchClient>): Promise<BenchClient[]> {
  const clients: BenchClient[] = [];
  try {
    for (let i = 0; i < count; i += 10) {
      const batch = Array.from({ length: Math.min(10, count - i) }, open);
      // allSettled, so that the ones that did open are in `clients` to be closed if another failed.
      const settled = await Promise.allSettled(batch);
      for (const outcome of settled) if (outcome.status === 'fulfilled') clients.push(outcome.value);
      const failed = settled.find((outcome) => outcome.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
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

/** Several rounds of one kind of phase as one result: samples and errors add up, and so does time. */
export function combine(results: readonly PhaseResult[]): PhaseResult {
  const firstError = results.find((result) => result.firstError !== undefined)?.firstError;
  const cpuMs: Partial<Record<MeasuredProcess, number>> = {};
  for (const name of MEASURED_PROCESSES) {
    const times = results.map((result) => result.cpuMs?.[name]);
    // A sum over only some rounds would be a wrong per-call figure; then there is none.
    if (times.every((ms) => ms !== undefined)) cpuMs[name] = sum(times);
  }
  const gcs = results.map((result) => result.frontGc);
  const frontGc =
    gcs.every((gc) => gc !== undefined) && gcs.length > 0
      ? { ms: sum(gcs.map((gc) => gc.ms)), major: sum(gcs.map((gc) => gc.major)), allocatedBytes: sum(gcs.map((gc) => gc.allocatedBytes)) }
      : undefined;
  return {
    samples: results.flatMap((result) => result.samples),
    errors: results.reduce((total, result) => total + result.errors, 0),
    elapsedMs: results.reduce((total, result) => total + result.elapsedMs, 0),
    ...(firstError !== undefined && { firstError }),
    cpuMs,
    ...(frontGc !== undefined && { frontGc }),
  };
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
