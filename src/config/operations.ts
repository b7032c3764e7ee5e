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
    enabled: lenientBoolean()
      .optional()
      .describe('`false`: off, whatever else is set; `true` alone sends to `http://localhost:4318/v1/traces`. Default: on when an endpoint is known.'),
    // The OTLP/HTTP traces endpoint, e.g. http://otel-collector:4318/v1/traces.
    endpoint: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL (OTLP over HTTP)' })
      .optional()
      .describe('The OTLP/HTTP traces URL, as it is (e.g. `http://otel-collector:4318/v1/traces`); else `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT`.'),
    protocol: z.enum(['http/protobuf', 'http/json']).optional().describe('Default `http/protobuf`, or `OTEL_EXPORTER_OTLP_PROTOCOL`.'),
    headers: z.record(z.string(), z.string()).optional().describe('Headers sent to the collector, merged by name over `OTEL_EXPORTER_OTLP_HEADERS`.'),
    serviceName: z.string().min(1).optional().describe('The resource\'s `service.name`; default `OTEL_SERVICE_NAME`, else `switchboard`.'),
    // Share of new traces (not continued from a client's sampled traceparent) that are recorded.
    sampleRatio: lenientNumber(z.number().min(0).max(1))
      .optional()
      .describe("The share of the traces the gateway starts that are recorded (a client's sampled `traceparent` is always followed); default 1."),
  })
  .strict()
  .describe('OpenTelemetry traces to an OTLP/HTTP collector; the `OTEL_*` variables apply beside it, a key here wins. Read at start.');

// The admin listener: the status page (/status) and the admin API, never on the MCP port unless
// `onServerPort` says so. Loopback by default: put it behind a non-public Service port.
export const adminSection = z
  .object({
    enabled: lenientBoolean().default(true).describe('Serve the status page and admin API.'),
    host: z
      .string()
      .min(1)
      .default('127.0.0.1')
      .describe("The admin listener's bind address: loopback, so only this machine (or a port-forward) reaches it."),
    port: lenientNumber(z.number().int().min(0).max(65_535)).default(8081).describe('Its port; `0` picks a free one.'),
    // Serve the page and the API on server.port too (then host and port here are not used).
    onServerPort: lenientBoolean()
      .default(false)
      .describe('Serve the page and the API on `server.port` (`/status`, `/api/...`) instead of a listener of their own; then `host` and `port` are not used.'),
    // Sign-in mode: where a person's browser opens the status page, so the sign-in can come back there.
    publicUrl: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .refine((value) => ['', '/'].includes(URL.parse(value)?.pathname ?? ''), 'must be an origin, without a path (the page is at /status under it)')
      .optional()
      .describe(
        'With `auth.signIn`: the origin people open the status page at (e.g. `https://switchboard-admin.internal.example.com` behind an internal ingress); the browser sign-in comes back to `<publicUrl>/signin/callback`. Unset: the page signs people in when opened on a loopback address (`http://127.0.0.1:<port>`, a port-forward), or on `server.publicUrl` with `onServerPort`.',
      ),
    // With auth: the scope an admin's token needs (401 without a token, 403 without the scope).
    scope: z
      .string()
      .regex(/^\S+$/, 'a scope is a word without spaces')
      .default('switchboard:admin')
      .describe(
        'With `auth`: the scope a token needs for the page and the API (401 without a token, 403 without the scope). With `auth.signIn`, a person signed in to the page needs it too: restrict who is granted it with `auth.signIn.scopeGrants`.',
      ),
  })
  .strict()
  .describe('The status page (`/status`) and the admin API, on a listener of their own.');

export type TelemetryConfig = z.output<typeof telemetrySection>;
export type AdminConfig = z.output<typeof adminSection>;
