// The per-request values middleware hands to routes.
import type { Principal } from '../auth/principal.js';
import type { JsonRpcId } from '../protocol/json-rpc.js';
import type { HttpRequestTrace } from './request-trace.js';
import type { TrustedProxies } from './trusted-proxies.js';

export interface AppEnv {
  Variables: {
    /** The authenticated principal; undefined when auth is off. */
    principal: Principal | undefined;
    requestId: string;
    /** Headers for the answer, whoever makes it (response-headers.ts). */
    responseHeaders: Record<string, string> | undefined;
    /** The responder wrote responseHeaders into the answer it made. */
    responseHeadersWritten: boolean | undefined;
    /** Set by the responder: whether its answer is a stream (SSE) rather than a body. */
    streamed: boolean | undefined;
    /**
     * The id of the request a POSTed body held, once parsed (routes/legacy-sse.ts): the store's 503
     * answers that request. Unset: null.
     */
    messageId: JsonRpcId | undefined;
    /** The request's span, on an MCP path while tracing is on (middleware/trace-requests.ts). */
    trace: HttpRequestTrace | undefined;
    /** server.trustedProxies, when some are configured (client-address.ts). */
    trustedProxies: TrustedProxies | undefined;
  };
}
