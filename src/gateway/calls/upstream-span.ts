// The span of one request the gateway sends an upstream on a client's behalf: the MCP conventions'
// client span, a child of the method span it serves. Its W3C context is what the upstream gets in
// `params._meta` (upstream-params.ts), and an HTTP upstream as a header too (the transports copy it).
import {
  EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME,
  GEN_AI_PROMPT_NAME,
  GEN_AI_TOOL_NAME,
  MCP_METHOD_NAME,
  MCP_PROTOCOL_VERSION,
  NETWORK_TRANSPORT,
  RPC_RESPONSE_STATUS_CODE,
  SWITCHBOARD_ERA,
  SWITCHBOARD_SERVER,
  TOOL_ERROR,
} from '../../observe/tracing/attributes.js';
import type { SpanParent, TraceSpan } from '../../observe/tracing/tracing.js';
import { UpstreamAuthChallengeError, UpstreamCancelledError, UpstreamRpcError, UpstreamTimeoutError, UpstreamUnavailableError } from '../../upstream/errors.js';
import type { JsonObject } from '../../protocol/json.js';

export interface UpstreamSpanTarget {
  readonly server: string;
  readonly modern: boolean;
  readonly transport: 'stdio' | 'http' | undefined;
  readonly protocolVersion: string | undefined;
}

export function startUpstreamSpan(parent: SpanParent, method: string, params: JsonObject, { server, modern, transport, protocolVersion }: UpstreamSpanTarget): TraceSpan {
  // The upstream's own name of the tool or prompt: the gateway resolved it before forwarding.
  const name = (method === 'tools/call' || method === 'prompts/get') && typeof params.name === 'string' ? params.name : undefined;
  return parent.startChild(name === undefined ? method : `${method} ${name}`, 'client', {
    [MCP_METHOD_NAME]: method,
    [GEN_AI_TOOL_NAME]: method === 'tools/call' ? name : undefined,
    [GEN_AI_PROMPT_NAME]: method === 'prompts/get' ? name : undefined,
    [GEN_AI_OPERATION_NAME]: method === 'tools/call' ? EXECUTE_TOOL : undefined,
    [MCP_PROTOCOL_VERSION]: protocolVersion,
    [NETWORK_TRANSPORT]: transport === undefined ? undefined : transport === 'stdio' ? 'pipe' : 'tcp',
    [SWITCHBOARD_SERVER]: server,
    [SWITCHBOARD_ERA]: modern ? '2026' : '2025',
  });
}

export function endUpstreamSpan(span: TraceSpan, method: string, result: JsonObject): void {
  span.end(method === 'tools/call' && result.isError === true ? TOOL_ERROR : undefined);
}

/** A failed upstream request: the JSON-RPC code it answered with, or what kept it from answering. */
export function failUpstreamSpan(span: TraceSpan, error: unknown): void {
  if (error instanceof UpstreamRpcError) {
    span.setAttributes({ [RPC_RESPONSE_STATUS_CODE]: String(error.code) });
    span.end(String(error.code));
  } else span.end(errorType(error));
}

function errorType(error: unknown): string {
  if (error instanceof UpstreamTimeoutError) return 'timeout';
  if (error instanceof UpstreamCancelledError) return 'cancelled';
  if (error instanceof UpstreamUnavailableError) return 'unavailable';
  if (error instanceof UpstreamAuthChallengeError) return String(error.status);
  return '_OTHER';
}
