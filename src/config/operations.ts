// The operator's window (config `telemetry` and `admin`): traces to the tracing system a team
// already runs, and a listener of its own for the status page and the admin API.
import { z } from 'zod';
import { lenientBoolean, lenientNumber } from './lenient.js';


// OpenTelemetry traces. The standard OTEL_* variables apply (OTEL_EXPORTER_OTLP_ENDPOINT,
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_EXPORTER_OTLP_HEADERS,
// OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER_ARG, OTEL_SDK_DISABLED); a key given here wins. Tracing is
// on when an endpoint is known, from here or from them, unless `enabled: false`.
export const telemetrySection = z
  .object({
    enabled: lenientBoolean().optional(),
    // The OTLP/HTTP traces endpoint, e.g. http://otel-collector:4318/v1/traces.
    endpoint: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL (OTLP over HTTP)' }).optional(),
    protocol: z.enum(['http/protobuf', 'http/json']).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    serviceName: z.string().min(1).optional(),
    // Share of new traces (not continued from a client's sampled traceparent) that are recorded.
    sampleRatio: lenientNumber(z.number().min(0).max(1)).optional(),
  })
  .strict();

// The admin listener: the status page (/status) and the admin API, never on the MCP port unless
// `onServerPort` says so. Loopback by default: put it behind a non-public Service port.
export const adminSection = z
  .object({
    enabled: lenientBoolean().default(true),
    host: z.string().min(1).default('127.0.0.1'),
    port: lenientNumber(z.number().int().min(0).max(65_535)).default(8081),
    // Serve the page and the API on server.port too (then host and port here are not used).
    onServerPort: lenientBoolean().default(false),
    // With auth: the scope an admin's token needs (401 without a token, 403 without the scope).
    scope: z.string().regex(/^\S+$/, 'a scope is a word without spaces').default('switchboard:admin'),
  })
  .strict();

export type TelemetryConfig = z.output<typeof telemetrySection>;
export type AdminConfig = z.output<typeof adminSection>;
