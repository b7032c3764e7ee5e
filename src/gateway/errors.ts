// The error the gateway's handlers throw, and the one place where failures from upstreams become
// it; codes and messages come from the catalogue (protocol/error-catalogue.ts). "Denied" and
// "unknown" are the same error on purpose: a client must not learn from the error that a tool it
// may not call exists.
import {
  UpstreamAuthChallengeError,
  UpstreamCancelledError,
  UpstreamRpcError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
} from '../upstream/errors.js';
import { CredentialMissingError, CredentialRefusedError, CredentialUnavailableError } from '../credentials/errors.js';
import { catalogueError, ERRORS, type CatalogueError, type ErrorName } from '../protocol/error-catalogue.js';
import { redactSecrets } from '../observe/redact.js';
import { redactText } from '../observe/redact-text.js';

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }

  /** A catalogue error (catalogueError()), with data if any. */
  static of({ code, message }: CatalogueError, data?: unknown): RpcError {
    return new RpcError(code, message, data);
  }

  toJson(): { code: number; message: string; data?: unknown } {
    return { code: this.code, message: this.message, ...(this.data !== undefined && { data: this.data }) };
  }
}

/** The catalogue entry `name` as an RpcError, its message built from `args`. */
export function rpcError<N extends ErrorName>(name: N, ...args: Parameters<(typeof ERRORS)[N]['message']>): RpcError {
  return RpcError.of(catalogueError(name, ...args));
}

export const rpcErrors = {
  methodNotFound: (method: string) => rpcError('MethodNotFound', method),
  invalidParams: (detail: string) => rpcError('InvalidParams', detail),
  unknownTool: (name: string) => rpcError('UnknownTool', name),
  ambiguousTool: (name: string, exposedNames: readonly string[]) => rpcError('AmbiguousTool', name, exposedNames.join(' or ')),
  unknownPrompt: (name: string) => rpcError('UnknownPrompt', name),
  unknownResource: (uri: string) => RpcError.of(catalogueError('ResourceNotFound', uri), { uri }),
  invalidCursor: () => rpcError('InvalidCursor'),
  internal: () => rpcError('InternalError'),
};

/**
 * Maps anything thrown while serving a request to the error the client gets, its text redacted:
 * upstreams' messages and connection errors may quote a URL's password or a configured key
 * (observe/redact-text.ts).
 */
export function toRpcError(error: unknown): RpcError {
  const rpc = rpcErrorOf(error);
  const message = redactText(rpc.message);
  const data: unknown = typeof rpc.data === 'string' ? redactText(rpc.data) : redactSecrets(rpc.data);
  return message === rpc.message && data === rpc.data ? rpc : new RpcError(rpc.code, message, data);
}

function rpcErrorOf(error: unknown): RpcError {
  if (error instanceof RpcError) return error;
  if (error instanceof UpstreamRpcError) {
    return new RpcError(error.code, `${error.message} (from upstream "${error.server}")`, error.data);
  }
  if (error instanceof UpstreamTimeoutError) {
    return new RpcError(ERRORS.RequestTimeout.code, error.message, { server: error.server, timeoutMs: error.timeoutMs });
  }
  if (error instanceof UpstreamUnavailableError) {
    return new RpcError(ERRORS.UpstreamUnavailable.code, error.message, { server: error.server });
  }
  if (error instanceof UpstreamAuthChallengeError) {
    const { challenge } = error;
    return new RpcError(ERRORS.UpstreamCredential.code, error.message, {
      server: error.server,
      reason: 'challenge',
      status: error.status,
      ...(challenge?.resourceMetadata !== undefined && { resourceMetadata: challenge.resourceMetadata }),
      ...(challenge?.error !== undefined && { error: challenge.error }),
    });
  }
  if (error instanceof CredentialMissingError) {
    return new RpcError(ERRORS.UpstreamCredential.code, error.message, { server: error.server, reason: 'missing' });
  }
  if (error instanceof CredentialRefusedError) {
    return new RpcError(ERRORS.UpstreamCredential.code, error.message, { server: error.server, reason: 'refused', error: error.error });
  }
  if (error instanceof CredentialUnavailableError) {
    return new RpcError(ERRORS.UpstreamUnavailable.code, error.message, { server: error.server });
  }
  if (error instanceof UpstreamCancelledError) {
    return new RpcError(ERRORS.RequestCancelled.code, error.message, { server: error.server });
  }
  return rpcErrors.internal();
}
