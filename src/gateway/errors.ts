// One catalogue of the JSON-RPC errors the gateway answers with, and the one place where failures
// from upstreams become them. "Denied" and "unknown" are the same error on purpose: a client must
// not learn from the error that a tool it may not call exists.
import {
  UpstreamAuthChallengeError,
  UpstreamCancelledError,
  UpstreamRpcError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
} from '../upstream/errors.js';
import { CredentialMissingError, CredentialRefusedError, CredentialUnavailableError } from '../credentials/errors.js';

export const JsonRpcCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Implementation-defined: the upstream that should answer is down or unreachable. */
  UpstreamUnavailable: -32000,
  /** Implementation-defined; the value the MCP SDKs use for a request timeout. */
  RequestTimeout: -32001,
  ResourceNotFound: -32002,
  /** Implementation-defined: a limit of limits.servers refused the request (server-limits.ts). */
  LimitExceeded: -32003,
  /**
   * Implementation-defined: the caller has no credential of their own for the upstream (none
   * configured, or the identity provider refused to exchange their token), or the upstream
   * refused the credential it was given (a 401/403 challenge). `data.reason` says which.
   */
  UpstreamCredential: -32004,
} as const;

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }

  toJson(): { code: number; message: string; data?: unknown } {
    return { code: this.code, message: this.message, ...(this.data !== undefined && { data: this.data }) };
  }
}

export const rpcErrors = {
  methodNotFound: (method: string) => new RpcError(JsonRpcCode.MethodNotFound, `Method not found: ${method}`),
  invalidParams: (detail: string) => new RpcError(JsonRpcCode.InvalidParams, `Invalid params: ${detail}`),
  unknownTool: (name: string) => new RpcError(JsonRpcCode.InvalidParams, `Unknown tool: ${name}`),
  unknownPrompt: (name: string) => new RpcError(JsonRpcCode.InvalidParams, `Unknown prompt: ${name}`),
  unknownResource: (uri: string) => new RpcError(JsonRpcCode.ResourceNotFound, `Resource not found: ${uri}`, { uri }),
  invalidCursor: () => new RpcError(JsonRpcCode.InvalidParams, 'Invalid params: the cursor is not one this gateway issued'),
  internal: () => new RpcError(JsonRpcCode.InternalError, 'Internal error'),
};

/** Maps anything thrown while serving a request to the error the client gets. */
export function toRpcError(error: unknown): RpcError {
  if (error instanceof RpcError) return error;
  if (error instanceof UpstreamRpcError) {
    return new RpcError(error.code, `${error.message} (from upstream "${error.server}")`, error.data);
  }
  if (error instanceof UpstreamTimeoutError) {
    return new RpcError(JsonRpcCode.RequestTimeout, error.message, { server: error.server, timeoutMs: error.timeoutMs });
  }
  if (error instanceof UpstreamUnavailableError) {
    return new RpcError(JsonRpcCode.UpstreamUnavailable, error.message, { server: error.server });
  }
  if (error instanceof UpstreamAuthChallengeError) {
    const { challenge } = error;
    return new RpcError(JsonRpcCode.UpstreamCredential, error.message, {
      server: error.server,
      reason: 'challenge',
      status: error.status,
      ...(challenge?.resourceMetadata !== undefined && { resourceMetadata: challenge.resourceMetadata }),
      ...(challenge?.error !== undefined && { error: challenge.error }),
    });
  }
  if (error instanceof CredentialMissingError) {
    return new RpcError(JsonRpcCode.UpstreamCredential, error.message, { server: error.server, reason: 'missing' });
  }
  if (error instanceof CredentialRefusedError) {
    return new RpcError(JsonRpcCode.UpstreamCredential, error.message, { server: error.server, reason: 'refused', error: error.error });
  }
  if (error instanceof CredentialUnavailableError) {
    return new RpcError(JsonRpcCode.UpstreamUnavailable, error.message, { server: error.server });
  }
  if (error instanceof UpstreamCancelledError) {
    return new RpcError(JsonRpcCode.RequestTimeout, error.message, { server: error.server });
  }
  return rpcErrors.internal();
}
