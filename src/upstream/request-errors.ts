// What the client SDK's errors mean in the gateway's terms (./errors.ts), so nothing above
// src/upstream/ needs to know the SDK.
import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { UpstreamCancelledError, upstreamError, UpstreamRpcError, UpstreamTimeoutError, UpstreamUnavailableError } from './errors.js';

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
    if (error.code === SdkErrorCode.MethodNotSupportedByProtocolVersion) return upstreamError(server, 'MethodNotFound', method);
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

/**
 * Why a connection could not be made, for the client's answer, the log, /readyz and the status
 * page: the upstream's URL (`url`, an HTTP upstream's; without user info or query, which may hold
 * secrets) and the socket's own error (`connect ECONNREFUSED 127.0.0.1:8080`) once. Errors wrap
 * that one in layers (the SDK's, then fetch's "fetch failed"), each quoting the one below.
 */
export function describeConnectError(error: unknown, url?: string): string {
  const why = socketError(error)?.message ?? causeChain(error);
  if (url === undefined) return `could not connect: ${why}`;
  const shown = urlForMessages(url);
  return `could not connect to ${shown}: ${withoutUrl(why, url, shown)}`;
}

/**
 * The URL as messages name it: scheme, host, port and path, nothing a careless config may hide
 * secrets in. A display form: the redaction every text gets on its way out is observe/redact-text.ts.
 */
export function urlForMessages(url: string): string {
  const parsed = URL.parse(url);
  return parsed === null ? '(an invalid URL)' : `${parsed.origin}${parsed.pathname}`;
}

/**
 * The system's error under the layers (it names its call and code: `connect ECONNREFUSED ...`,
 * `getaddrinfo ENOTFOUND ...`), if any; of several addresses tried (IPv6 and IPv4), the first.
 */
function socketError(error: unknown): Error | undefined {
  for (let layer = error, depth = 0; layer instanceof Error && depth < MAX_CAUSES; layer = layer.cause, depth++) {
    if (typeof (layer as Error & { syscall?: unknown }).syscall === 'string') return layer;
    if (layer instanceof AggregateError) {
      const first: unknown = layer.errors.find((each) => socketError(each) !== undefined);
      if (first !== undefined) return socketError(first);
    }
  }
  return undefined;
}

/** Each layer's message, but none that the one above already quotes. */
function causeChain(error: unknown): string {
  let text = errorMessage(error);
  let layer = error instanceof Error ? error.cause : undefined;
  for (let depth = 1; layer instanceof Error && depth < MAX_CAUSES; layer = layer.cause, depth++) {
    if (!text.includes(layer.message)) text += `: ${layer.message}`;
  }
  return text;
}
const MAX_CAUSES = 8;

/** Some errors quote the URL they were given (fetch refuses one with user info, saying it whole). */
function withoutUrl(text: string, url: string, shown: string): string {
  const href = URL.parse(url)?.href;
  let scrubbed = text.split(url).join(shown);
  if (href !== undefined) scrubbed = scrubbed.split(href).join(shown);
  return scrubbed;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
