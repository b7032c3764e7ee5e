// The span of one JSON-RPC request the gateway serves: the MCP conventions' server span, started
// under the request's parent (Caller.parentSpan: its HTTP request's span, or the client's own
// context), named `{method} {tool or prompt}` once that name proved to be one of the catalogue's,
// and ended with what the audit line says of it. Made only when the caller brings a parent.
import {
  EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME,
  GEN_AI_PROMPT_NAME,
  GEN_AI_TOOL_NAME,
  JSONRPC_REQUEST_ID,
  MCP_METHOD_NAME,
  MCP_PROTOCOL_VERSION,
  MCP_SESSION_ID,
  NETWORK_PROTOCOL_NAME,
  NETWORK_TRANSPORT,
  RPC_RESPONSE_STATUS_CODE,
  SWITCHBOARD_ENDPOINT,
  SWITCHBOARD_ERA,
  SWITCHBOARD_OUTCOME,
  SWITCHBOARD_REASON,
  SWITCHBOARD_SERVER,
  TOOL_ERROR,
} from '../observe/tracing/attributes.js';
import type { SpanParent, TraceSpan } from '../observe/tracing/tracing.js';
import type { Era } from './caller.js';
import type { RequestTrace } from './handlers/handler-context.js';
import type { JsonRpcRequest, JsonRpcResponse } from '../protocol/json-rpc.js';
import type { RequestOutcome } from './observer.js';

export interface MethodSpanStart {
  readonly era: Era;
  readonly protocolVersion: string | undefined;
  /** The 2025 session's id (only its first 8 characters are recorded). */
  readonly sessionId: string | undefined;
  readonly endpoint: string | undefined;
}

export function startMethodSpan(parent: SpanParent, request: JsonRpcRequest, { era, protocolVersion, sessionId, endpoint }: MethodSpanStart): TraceSpan {
  return parent.startChild(request.method, 'server', {
    [MCP_METHOD_NAME]: request.method,
    [JSONRPC_REQUEST_ID]: String(request.id),
    [MCP_PROTOCOL_VERSION]: protocolVersion,
    [MCP_SESSION_ID]: sessionId?.slice(0, 8),
    [SWITCHBOARD_ERA]: era === 'modern' ? '2026' : '2025',
    [SWITCHBOARD_ENDPOINT]: endpoint,
    [GEN_AI_OPERATION_NAME]: request.method === 'tools/call' ? EXECUTE_TOOL : undefined,
    // The gateway's clients reach it over HTTP (Streamable HTTP or the 2024-11-05 transport).
    [NETWORK_TRANSPORT]: 'tcp',
    [NETWORK_PROTOCOL_NAME]: 'http',
  });
}

export function endMethodSpan(span: TraceSpan, request: JsonRpcRequest, response: JsonRpcResponse, trace: RequestTrace, outcome: RequestOutcome): void {
  const error = 'error' in response ? response.error : undefined;
  // Only a name the catalogue resolved (trace.name is set then), never whatever a client sent.
  const target = trace.name !== undefined && typeof request.params?.name === 'string' ? request.params.name : undefined;
  span.setAttributes({
    [SWITCHBOARD_SERVER]: trace.server,
    [SWITCHBOARD_OUTCOME]: outcome,
    [SWITCHBOARD_REASON]: trace.reason,
    [RPC_RESPONSE_STATUS_CODE]: error && String(error.code),
    [GEN_AI_TOOL_NAME]: request.method === 'tools/call' ? target : undefined,
    [GEN_AI_PROMPT_NAME]: request.method === 'prompts/get' ? target : undefined,
  });
  if (target !== undefined) span.rename(`${request.method} ${target}`);
  span.end(error ? String(error.code) : isToolError(request.method, response) ? TOOL_ERROR : undefined);
}

function isToolError(method: string, response: JsonRpcResponse): boolean {
  return method === 'tools/call' && 'result' in response && response.result.isError === true;
}
