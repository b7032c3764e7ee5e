// The figures a phase result comes down to: one definition for the printed table, the verdicts
// and the JSON file, so the three always agree.
import { MEASURED_PROCESSES, type LoadName, type MeasuredProcess, type PhaseResult } from './load.js';
import { summarise } from './percentiles.js';

/** One scenario of one phase under one load: each target's result, measured in the same interleaved rounds. */
export interface Comparison {
  /** What was called: "echo", "ping", "tools/list". */
  readonly phase: string;
  readonly load: LoadName;
  /** e.g. "sequential" or "50 concurrent". */
  readonly scenario: string;
  readonly results: readonly { readonly target: { readonly name: string; readonly label: string }; readonly result: PhaseResult }[];
}

export interface Figures {
  readonly calls: number;
  readonly errors: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  readonly maxMs: number;
  readonly callsPerSecond: number;
  /** CPU time of each process per call (successful or not); absent where it could not be read or does not apply. */
  readonly cpuMsPerCall: Readonly<Partial<Record<MeasuredProcess, number>>>;
  /**
   * How many CPUs the machine kept busy on average during the phase, whatever ran on them; absent
   * without /proc/stat. On two cores a front and its upstream and load, three processes that wait
   * on each other, leave part of the second idle (README, Benchmark): the front's calls/s is this
   * over the machine's CPU per call (nearly all of it the three's), not two cores over it.
   */
  readonly coresBusy?: number;
  /**
   * The front's GC pauses per call, its full collections in the phase, and the bytes it allocated
   * per call (the garbage its young collections deal with); absent without the hooks. Records
   * written before the allocation was counted (an older JSON given to --compare) have no allocatedBytesPerCall.
   */
  readonly frontGc?: { readonly msPerCall: number; readonly major: number; readonly allocatedBytesPerCall?: number };
}

export function figuresOf(result: PhaseResult): Figures {
  const summary = result.samples.length > 0 ? summarise(result.samples) : undefined;
  const calls = result.samples.length + result.errors;
  const cpuMsPerCall: Partial<Record<MeasuredProcess, number>> = {};
  for (const process of MEASURED_PROCESSES) {
    const cpuMs = result.cpuMs?.[process];
    if (cpuMs !== undefined) cpuMsPerCall[process] = cpuMs / calls;
  }
  const { frontGc } = result;
  const machineMs = result.cpuMs?.machine;
  return {
    calls: result.samples.length,
    errors: result.errors,
    p50Ms: summary?.p50 ?? Number.NaN,
    p99Ms: summary?.p99 ?? Number.NaN,
    meanMs: summary?.mean ?? Number.NaN,
    maxMs: summary?.max ?? Number.NaN,
    callsPerSecond: result.samples.length / (result.elapsedMs / 1000),
    cpuMsPerCall,
    ...(machineMs !== undefined && result.elapsedMs > 0 && { coresBusy: machineMs / result.elapsedMs }),
    ...(frontGc !== undefined && { frontGc: { msPerCall: frontGc.ms / calls, major: frontGc.major, allocatedBytesPerCall: frontGc.allocatedBytes / calls } }),
  };
}
