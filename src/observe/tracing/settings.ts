// Whether the gateway sends traces, and where: the config's `telemetry` block over the standard
// OTEL_* variables (a key the config gives wins), resolved once at start. Off unless an endpoint is
// known or `enabled: true` says so (then the OTLP default, localhost:4318). A variable with a value
// the gateway cannot use is ignored with a warning, as the OpenTelemetry SDKs do, rather than
// stopping the gateway: tracing is never a reason not to serve.
import type { TelemetryConfig } from '../../config/operations.js';

export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** Which new traces are recorded. `parentBased`: a client's sampled flag decides for the traces it continues. */
export interface SamplerSettings {
  readonly parentBased: boolean;
  /** Share of the traces this gateway starts (or, without parentBased, of all) that are recorded. */
  readonly ratio: number;
}

export interface TracingSettings {
  /** The OTLP/HTTP traces URL, e.g. http://otel-collector:4318/v1/traces. */
  readonly endpoint: string;
  readonly protocol: OtlpProtocol;
  readonly headers: Readonly<Record<string, string>>;
  readonly serviceName: string;
  readonly sampler: SamplerSettings;
}

export interface ResolvedTracing {
  /** Undefined: tracing is off. */
  readonly settings: TracingSettings | undefined;
  /** Variables that were set to something unusable, and what was done instead. */
  readonly warnings: readonly string[];
}

export type Environment = Readonly<Record<string, string | undefined>>;

const DEFAULT_ENDPOINT = 'http://localhost:4318/v1/traces';
const TRACES_PATH = 'v1/traces';
const DEFAULT_SERVICE_NAME = 'switchboard';
const SAMPLERS = new Set(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio']);

export function resolveTracing(config: TelemetryConfig, env: Environment): ResolvedTracing {
  const warnings: string[] = [];
  const variable = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  if (config.enabled === false) return { settings: undefined, warnings };
  if (config.enabled === undefined && (variable('OTEL_SDK_DISABLED')?.toLowerCase() === 'true' || variable('OTEL_TRACES_EXPORTER')?.toLowerCase() === 'none')) {
    return { settings: undefined, warnings };
  }
  const endpoint = config.endpoint ?? envEndpoint(variable, warnings) ?? (config.enabled === true ? DEFAULT_ENDPOINT : undefined);
  if (endpoint === undefined) return { settings: undefined, warnings };
  return {
    settings: {
      endpoint,
      protocol: config.protocol ?? envProtocol(variable, warnings),
      headers: {
        ...headerList('OTEL_EXPORTER_OTLP_HEADERS', variable, warnings),
        ...headerList('OTEL_EXPORTER_OTLP_TRACES_HEADERS', variable, warnings),
        ...config.headers,
      },
      serviceName: config.serviceName ?? variable('OTEL_SERVICE_NAME') ?? DEFAULT_SERVICE_NAME,
      sampler: config.sampleRatio !== undefined ? { parentBased: true, ratio: config.sampleRatio } : envSampler(variable, warnings),
    },
    warnings,
  };
}

type Variable = (name: string) => string | undefined;

/** The signal's own endpoint as it is; the general one is a base URL that gets /v1/traces (the OTLP exporter spec). */
function envEndpoint(variable: Variable, warnings: string[]): string | undefined {
  const traces = variable('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  if (traces !== undefined) {
    if (isHttpUrl(traces)) return traces;
    warnings.push(`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is not an http(s) URL ("${traces.slice(0, 100)}"): ignored`);
  }
  const base = variable('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (base === undefined) return undefined;
  if (!isHttpUrl(base)) {
    warnings.push(`OTEL_EXPORTER_OTLP_ENDPOINT is not an http(s) URL ("${base.slice(0, 100)}"): ignored`);
    return undefined;
  }
  return base.endsWith('/') ? `${base}${TRACES_PATH}` : `${base}/${TRACES_PATH}`;
}

function envProtocol(variable: Variable, warnings: string[]): OtlpProtocol {
  const name = variable('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') !== undefined ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const value = variable(name);
  if (value === undefined || value === 'http/protobuf') return 'http/protobuf';
  if (value === 'http/json') return value;
  warnings.push(`${name}=${value.slice(0, 40)} is not supported (OTLP over HTTP only: http/protobuf or http/json; a collector takes it on port 4318): using http/protobuf`);
  return 'http/protobuf';
}

function envSampler(variable: Variable, warnings: string[]): SamplerSettings {
  const name = variable('OTEL_TRACES_SAMPLER')?.toLowerCase() ?? 'parentbased_always_on';
  if (!SAMPLERS.has(name)) {
    warnings.push(`OTEL_TRACES_SAMPLER=${name.slice(0, 40)} is not supported: using parentbased_always_on`);
    return { parentBased: true, ratio: 1 };
  }
  const parentBased = name.startsWith('parentbased_');
  if (name.endsWith('always_on')) return { parentBased, ratio: 1 };
  if (name.endsWith('always_off')) return { parentBased, ratio: 0 };
  const arg = variable('OTEL_TRACES_SAMPLER_ARG');
  const ratio = arg === undefined ? 1 : Number(arg);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
    warnings.push(`OTEL_TRACES_SAMPLER_ARG=${(arg ?? '').slice(0, 40)} is not a ratio between 0 and 1: using 1`);
    return { parentBased, ratio: 1 };
  }
  return { parentBased, ratio };
}

/**
 * `key1=value1,key2=value2`, values percent-encoded (the OTLP exporter spec's format, W3C Baggage's
 * without properties). Written here rather than taken from @opentelemetry/core, which a gateway
 * with tracing off then never loads. An entry that does not parse is skipped, as the SDKs do, with
 * a warning that names the variable and the entry's position but never its text: these headers are
 * mostly a collector's credentials, and a missing one would otherwise only show as refused exports.
 */
function headerList(name: string, variable: Variable, warnings: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  const value = variable(name);
  if (value === undefined) return headers;
  value.split(',').forEach((entry, index) => {
    // An empty entry (a trailing comma) holds nothing that could be missing.
    if (entry.trim() === '') return;
    const problem = headerEntryProblem(entry, headers);
    if (problem !== undefined) warnings.push(`${name}: entry ${index + 1} ${problem}: ignored`);
  });
  return headers;
}

/** Adds the entry's header; or says what is wrong with it, without quoting it. */
function headerEntryProblem(entry: string, headers: Record<string, string>): string | undefined {
  const separator = entry.indexOf('=');
  if (separator === -1) return 'is not name=value (no "=")';
  let name: string;
  let content: string;
  try {
    name = decodeURIComponent(entry.slice(0, separator).trim());
    content = decodeURIComponent(entry.slice(separator + 1).trim());
  } catch {
    return 'is not valid percent-encoding';
  }
  if (name === '') return 'has no name before "="';
  if (content === '') return 'has no value after "="';
  headers[name] = content;
  return undefined;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
