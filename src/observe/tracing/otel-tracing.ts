// Tracing through the OpenTelemetry JS SDK: a BasicTracerProvider of our own (never registered as
// the process's global one, and with no context manager: parents are always given), a
// BatchSpanProcessor, and the OTLP/HTTP exporter for the protocol asked for. Spans are made with an
// explicit parent context (trace.setSpan / setSpanContext on ROOT_CONTEXT), so nothing in the
// process is hooked to find the current span.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type SpanContext, type Tracer } from '@opentelemetry/api';
import { ExportResultCode, hrTime, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Logger } from '../logger.js';
import { GATEWAY_VERSION } from '../../version.js';
import type { SamplerSettings, TracingSettings } from './settings.js';
import type { SpanAttributes, SpanKindName, SpanParent, StartOptions, TraceSpan, Tracing } from './tracing.js';

export interface OtelTracingOptions {
  readonly logger: Logger;
  /** How long finished spans wait to be sent in a batch (the SDK's 5 s by default); tests make it short. */
  readonly exportDelayMs?: number;
  /** Another exporter (an in-memory one in tests), each span sent as it ends. */
  readonly exporter?: SpanExporter;
}

/** A shutdown waits this long for the last batch, then gives up on it. */
const SHUTDOWN_LIMIT_MS = 5_000;
const KINDS: Readonly<Record<SpanKindName, SpanKind>> = { server: SpanKind.SERVER, client: SpanKind.CLIENT };
const propagator = new W3CTraceContextPropagator();
const carrierGetter = {
  get: (carrier: Record<string, string>, key: string) => carrier[key],
  keys: (carrier: Record<string, string>) => Object.keys(carrier),
};

export function createOtelTracing(settings: TracingSettings, options: OtelTracingOptions): Tracing {
  const exporter = options.exporter ?? reportingFailures(otlpExporter(settings), options.logger);
  const processor: SpanProcessor = options.exporter
    ? new SimpleSpanProcessor(exporter)
    : new BatchSpanProcessor(exporter, options.exportDelayMs === undefined ? {} : { scheduledDelayMillis: options.exportDelayMs });
  const provider = new BasicTracerProvider({
    // OTEL_RESOURCE_ATTRIBUTES is read here; the service's own name and version win over it.
    resource: detectResources({ detectors: [envDetector] }).merge(
      resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName, [ATTR_SERVICE_VERSION]: GATEWAY_VERSION }),
    ),
    sampler: samplerOf(settings.sampler),
    spanProcessors: [processor],
  });
  return new OtelTracing(provider.getTracer('switchboard', GATEWAY_VERSION), () => provider.shutdown());
}

class OtelTracing implements Tracing {
  constructor(
    private readonly tracer: Tracer,
    private readonly stop: () => Promise<void>,
  ) {}

  continued(traceparent: unknown, tracestate: unknown): SpanParent | undefined {
    if (typeof traceparent !== 'string') return undefined;
    const carrier: Record<string, string> = typeof tracestate === 'string' ? { traceparent, tracestate } : { traceparent };
    const context = trace.getSpanContext(propagator.extract(ROOT_CONTEXT, carrier, carrierGetter));
    return context && trace.isSpanContextValid(context) ? new RemoteParent(this, context) : undefined;
  }

  startSpan(name: string, kind: SpanKindName, attributes: SpanAttributes, options: StartOptions = {}): TraceSpan {
    const { parent, startTime, links } = options;
    const span = this.tracer.startSpan(
      name,
      {
        kind: KINDS[kind],
        attributes,
        // Every time as an absolute HrTime from one clock (the time origin plus performance.now()):
        // given numbers, the SDK anchors each span to Date.now() in whole milliseconds on its own,
        // and a child could then seem to end up to a millisecond after its parent.
        startTime: hrTime(startTime ?? performance.now()),
        ...(links !== undefined && { links: links.map((link) => ({ context: contextOf(link) })) }),
      },
      parent === undefined ? ROOT_CONTEXT : parentContext(parent),
    );
    return new OtelSpan(this, span);
  }

  async shutdown(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, SHUTDOWN_LIMIT_MS);
      timer.unref();
    });
    await Promise.race([this.stop().catch(() => {}), limit]);
    clearTimeout(timer);
  }
}

class RemoteParent implements SpanParent {
  constructor(
    private readonly tracing: OtelTracing,
    readonly context: SpanContext,
  ) {}

  get traceId(): string {
    return this.context.traceId;
  }

  startChild(name: string, kind: SpanKindName, attributes: SpanAttributes): TraceSpan {
    return this.tracing.startSpan(name, kind, attributes, { parent: this });
  }
}

class OtelSpan implements TraceSpan {
  readonly traceId: string;
  readonly spanId: string;

  constructor(
    private readonly tracing: OtelTracing,
    readonly span: Span,
  ) {
    const context = span.spanContext();
    this.traceId = context.traceId;
    this.spanId = context.spanId;
  }

  get traceparent(): string {
    const flags = this.span.spanContext().traceFlags & 0xff;
    return `00-${this.traceId}-${this.spanId}-${flags < 16 ? '0' : ''}${flags.toString(16)}`;
  }

  get tracestate(): string | undefined {
    return this.span.spanContext().traceState?.serialize() || undefined;
  }

  startChild(name: string, kind: SpanKindName, attributes: SpanAttributes): TraceSpan {
    return this.tracing.startSpan(name, kind, attributes, { parent: this });
  }

  setAttributes(attributes: SpanAttributes): void {
    this.span.setAttributes(attributes);
  }

  rename(name: string): void {
    this.span.updateName(name);
  }

  end(errorType?: string): void {
    if (errorType !== undefined) {
      this.span.setAttribute('error.type', errorType);
      this.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    // On the start's clock (startSpan): given a start time, the SDK would otherwise take the end
    // from Date.now(), whole milliseconds, and a sub-millisecond span would lose its length.
    this.span.end(hrTime(performance.now()));
  }
}

function parentContext(parent: SpanParent): Context {
  if (parent instanceof OtelSpan) return trace.setSpan(ROOT_CONTEXT, parent.span);
  if (parent instanceof RemoteParent) return trace.setSpanContext(ROOT_CONTEXT, parent.context);
  throw new Error('a span parent of another Tracing');
}

function contextOf(span: TraceSpan): SpanContext {
  if (span instanceof OtelSpan) return span.span.spanContext();
  throw new Error('a span of another Tracing');
}

function samplerOf({ parentBased, ratio }: SamplerSettings): Sampler {
  const root = ratio >= 1 ? new AlwaysOnSampler() : ratio <= 0 ? new AlwaysOffSampler() : new TraceIdRatioBasedSampler(ratio);
  return parentBased ? new ParentBasedSampler({ root }) : root;
}

function otlpExporter(settings: TracingSettings): SpanExporter {
  const config = { url: settings.endpoint, headers: { ...settings.headers } };
  return settings.protocol === 'http/json' ? new JsonTraceExporter(config) : new ProtobufTraceExporter(config);
}

/**
 * The exporter, with its failures in our log: one warning when exports start failing (the
 * collector is down or refuses), one line when they work again, nothing per batch in between.
 * Spans that could not be sent are dropped; the gateway serves on.
 */
function reportingFailures(exporter: SpanExporter, logger: Logger): SpanExporter {
  let failing = false;
  return {
    export(spans, done) {
      exporter.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS && !failing) {
          failing = true;
          logger.warn({ err: result.error?.message ?? 'unknown error', spans: spans.length }, 'trace export failed; spans are dropped until the collector answers');
        } else if (result.code === ExportResultCode.SUCCESS && failing) {
          failing = false;
          logger.info('trace export works again');
        }
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    ...(exporter.forceFlush && { forceFlush: () => exporter.forceFlush!() }),
  };
}
