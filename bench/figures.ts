// The figures a phase result comes down to, and the ratios between targets: one definition for
// the printed table and the JSON file, so the two always agree.
import { MEASURED_PROCESSES, type MeasuredProcess, type PhaseResult } from './load.js';
import { summarise } from './percentiles.js';
import type { Target, TargetName } from './targets.js';

/** One scenario under one load: each target's result, measured in the same interleaved rounds. */
export interface Comparison {
  readonly load: 'sdk' | 'http';
  /** e.g. "sequential" or "50 concurrent". */
  readonly scenario: string;
  readonly results: readonly { readonly target: Target; readonly result: PhaseResult }[];
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
}

export function figuresOf(result: PhaseResult): Figures {
  const summary = result.samples.length > 0 ? summarise(result.samples) : undefined;
  const cpuMsPerCall: Partial<Record<MeasuredProcess, number>> = {};
  for (const process of MEASURED_PROCESSES) {
    const cpuMs = result.cpuMs?.[process];
    if (cpuMs !== undefined) cpuMsPerCall[process] = cpuMs / (result.samples.length + result.errors);
  }
  return {
    calls: result.samples.length,
    errors: result.errors,
    p50Ms: summary?.p50 ?? Number.NaN,
    p99Ms: summary?.p99 ?? Number.NaN,
    meanMs: summary?.mean ?? Number.NaN,
    maxMs: summary?.max ?? Number.NaN,
    callsPerSecond: result.samples.length / (result.elapsedMs / 1000),
    cpuMsPerCall,
  };
}

/**
 * The comparisons worth a line: each era through the gateway against the upstream alone, and the
 * eras against each other. A ratio is `of / to`: for latency above 1 means slower, for throughput
 * below 1 means fewer calls per second.
 */
export const RATIOS: readonly { readonly label: string; readonly of: TargetName; readonly to: TargetName }[] = [
  { label: '2025/direct', of: 'gateway-2025', to: 'direct' },
  { label: '2026/direct', of: 'gateway-2026', to: 'direct' },
  { label: '2026/2025', of: 'gateway-2026', to: 'gateway-2025' },
];

export interface Ratio {
  readonly p50: number;
  readonly p99: number;
  readonly callsPerSecond: number;
  readonly gatewayCpuPerCall?: number;
}

export function ratioOf(of: Figures, to: Figures): Ratio {
  const gatewayOf = of.cpuMsPerCall.gateway;
  const gatewayTo = to.cpuMsPerCall.gateway;
  return {
    p50: of.p50Ms / to.p50Ms,
    p99: of.p99Ms / to.p99Ms,
    callsPerSecond: of.callsPerSecond / to.callsPerSecond,
    // Only between the two gateway eras: the one figure that survives a noisy machine.
    ...(gatewayOf !== undefined && gatewayTo !== undefined && { gatewayCpuPerCall: gatewayOf / gatewayTo }),
  };
}
