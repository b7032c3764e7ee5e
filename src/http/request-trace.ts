// The span of one HTTP request to an MCP path (the HTTP conventions' server span), made when the
// route knows which trace the request continues: the client's `traceparent` header, or failing
// that the one in its MCP message's `_meta` (a 2026 client may send only that). It starts at the
// time the request came in, so the middleware (auth, limits) is inside it, and it ends with the
// response, or, for a POST answered as a stream, with the JSON-RPC response that ends the stream
// (hold), so the message's span is inside it too.
import { HTTP_REQUEST_METHOD, HTTP_RESPONSE_STATUS_CODE, HTTP_ROUTE, NETWORK_PROTOCOL_NAME, URL_PATH, URL_SCHEME } from '../observe/tracing/attributes.js';
import type { SpanParent, TraceSpan, Tracing } from '../observe/tracing/tracing.js';

/** `error.type` of a request whose client closed the connection before the gateway could answer. */
const CLIENT_LEFT = 'client_closed';

export interface HttpRequestStart {
  readonly method: string;
  /** The route's path (an MCP path of the config, so bounded); never the query string. */
  readonly path: string;
  /** performance.now() when the request came in. */
  readonly startTime: number;
  readonly traceparent: string | undefined;
  readonly tracestate: string | undefined;
}

/** The trace context a message names in its `_meta`, unchecked (protocol/trace-meta.ts reads it). */
export interface MessageTraceContext {
  readonly traceparent: unknown;
  readonly tracestate: unknown;
}

export class HttpRequestTrace {
  #span: TraceSpan | undefined;
  #holds = 0;
  #status: number | undefined;
  #ended = false;

  constructor(
    private readonly tracing: Tracing,
    private readonly start: HttpRequestStart,
  ) {}

  /** The request's span, once begun (the access log line names it). */
  get span(): TraceSpan | undefined {
    return this.#span;
  }

  /**
   * What the span of an MCP message in this request goes under: the request's own span, begun now
   * if it was not (continuing the header's trace, or else the message's). A message whose `_meta`
   * continues another trace than the request's gets its span there, linked to the request's (the
   * MCP conventions: a message's own context is its span's parent, the transport's a link).
   */
  parentFor(message: MessageTraceContext | undefined): SpanParent {
    const continued = message && this.tracing.continued(message.traceparent, message.tracestate);
    const span = this.#begin(continued);
    if (!continued || continued.traceId === span.traceId) return span;
    const { tracing } = this;
    return { traceId: continued.traceId, startChild: (name, kind, attributes) => tracing.startSpan(name, kind, attributes, { parent: continued, links: [span] }) };
  }

  /** Keeps the span open after the response's head, until the returned release is called. */
  hold(): () => void {
    this.#holds += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#holds -= 1;
      this.#endIfDone();
    };
  }

  /** The response (its head, for a stream) went out with `status`. */
  responded(status: number): void {
    this.#status = status;
    this.#begin(undefined);
    this.#endIfDone();
  }

  /**
   * The client left before any response went out (in the middle of its body): the span ends now,
   * with no status code and `error.type` saying why, so that it is exported like any other.
   */
  abandoned(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#begin(undefined).end(CLIENT_LEFT);
  }

  #begin(fromMessage: SpanParent | undefined): TraceSpan {
    if (this.#span) return this.#span;
    const { method, path, startTime, traceparent, tracestate } = this.start;
    const parent = this.tracing.continued(traceparent, tracestate) ?? fromMessage;
    this.#span = this.tracing.startSpan(
      `${method} ${path}`,
      'server',
      { [HTTP_REQUEST_METHOD]: method, [HTTP_ROUTE]: path, [URL_PATH]: path, [URL_SCHEME]: 'http', [NETWORK_PROTOCOL_NAME]: 'http' },
      { startTime, ...(parent && { parent }) },
    );
    return this.#span;
  }

  #endIfDone(): void {
    const status = this.#status;
    if (this.#ended || this.#holds > 0 || status === undefined || !this.#span) return;
    this.#ended = true;
    this.#span.setAttributes({ [HTTP_RESPONSE_STATUS_CODE]: status });
    // The HTTP conventions: a server span fails on a 5xx; a 4xx is the client's mistake.
    this.#span.end(status >= 500 ? String(status) : undefined);
  }
}
