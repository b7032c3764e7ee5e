// What the rest of the gateway sees of tracing: spans started under an explicit parent and ended
// with an outcome. No ambient context: a request's span is handed down the way its request id is
// (Caller.parentSpan), since AsyncLocalStorage on Node 20 hooks every promise in the process
// (docs/decisions/0015-request-ids-without-async-local-storage.md). Tracing off is `undefined`
// wherever a Tracing or a span would be: one check per layer, nothing allocated.
export type SpanKindName = 'server' | 'client';

/** Attribute values; an undefined one is left out. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** A context spans can be started under: a span of ours, or a client's (its W3C traceparent). */
export interface SpanParent {
  /** The trace this parent belongs to (32 lowercase hex digits). */
  readonly traceId: string;
  startChild(name: string, kind: SpanKindName, attributes: SpanAttributes): TraceSpan;
}

export interface TraceSpan extends SpanParent {
  readonly spanId: string;
  /** The W3C `traceparent` of this span: what a child in another process continues. */
  readonly traceparent: string;
  /** The W3C `tracestate` it carries on, if the trace has one. */
  readonly tracestate: string | undefined;
  setAttributes(attributes: SpanAttributes): void;
  /** A name known only once the operation ran (a tool that turned out to exist). */
  rename(name: string): void;
  /**
   * Ends the span. `errorType` (the `error.type` attribute: a JSON-RPC code, `tool_error`, an HTTP
   * status) marks it failed. No message: an error's text may quote the arguments.
   */
  end(errorType?: string): void;
}

export interface StartOptions {
  /** None: the span starts a new trace (which the sampler may or may not record). */
  readonly parent?: SpanParent;
  /** When the operation began, as performance.now() read it; default now. */
  readonly startTime?: number;
  /** Spans of other traces this one belongs with (an HTTP request whose MCP message continues another trace). */
  readonly links?: readonly TraceSpan[];
}

export interface Tracing {
  /** A client's context from its `traceparent` and `tracestate` (header or `_meta`); undefined when absent or malformed. */
  continued(traceparent: unknown, tracestate: unknown): SpanParent | undefined;
  startSpan(name: string, kind: SpanKindName, attributes: SpanAttributes, options?: StartOptions): TraceSpan;
  /** Exports what is still buffered, then stops; bounded, so a collector that is down does not hold up a shutdown. */
  shutdown(): Promise<void>;
}
