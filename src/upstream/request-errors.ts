// What the client SDK's errors mean in the gateway's terms (./errors.ts), so nothing above
// src/upstream/ needs to know the SDK.
import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { UpstreamCancelledError, UpstreamRpcError, UpstreamTimeoutError, UpstreamUnavailableError } from './errors.js';

export function translateRequestError(server: string, method: string, timeoutMs: number, error: unknown, signal: AbortSignal | undefined): Error {
  if (
    error instanceof UpstreamRpcError ||
    error instanceof UpstreamUnavailableError ||
    error instanceof UpstreamTimeoutError ||
    error instanceof UpstreamCancelledError
  ) {
    return error;
  }
  if (signal?.aborted) return new UpstreamCancelledError(server, method);
  if (error instanceof ProtocolError) return new UpstreamRpcError(server, error.code, stripSdkPrefix(error.message), error.data);
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout) return new UpstreamTimeoutError(server, method, timeoutMs);
    // A 2025 method sent to a modern upstream (or the reverse): the upstream cannot do it, which is
    // what "method not found" says, and it is no sign of an upstream in trouble.
    if (error.code === SdkErrorCode.MethodNotSupportedByProtocolVersion) return new UpstreamRpcError(server, -32601, `Method not found: ${method}`);
    return new UpstreamUnavailableError(server, error.message);
  }
  return new UpstreamUnavailableError(server, errorMessage(error));
}

/** A notification the upstream's era does not have: dropped rather than failed (see Upstream.notify). */
export function isNotInEra(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.MethodNotSupportedByProtocolVersion;
}

/** The SDK puts "MCP error -32602: " in front of the upstream's message; the code travels separately. */
function stripSdkPrefix(message: string): string {
  return message.replace(/^MCP error -?\d+: /, '');
}

export function describeConnectError(error: unknown): string {
  const message = errorMessage(error);
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `could not connect: ${message}${cause}`;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
