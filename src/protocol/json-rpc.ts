// JSON-RPC 2.0 message shapes, and the check that sorts a parsed body into them. Anything that is
// not one of these gets -32600 before it reaches a handler.
import { isJsonObject, type JsonObject } from './json.js';

export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  readonly jsonrpc: '2.0';
  readonly id: JsonRpcId;
  readonly method: string;
  readonly params?: JsonObject;
}

export interface JsonRpcNotification {
  readonly jsonrpc: '2.0';
  readonly method: string;
  readonly params?: JsonObject;
}

export interface JsonRpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

export type JsonRpcResponse =
  | { readonly jsonrpc: '2.0'; readonly id: JsonRpcId; readonly result: JsonObject }
  | { readonly jsonrpc: '2.0'; readonly id: JsonRpcId | null; readonly error: JsonRpcErrorObject };

export type ClassifiedMessage =
  | { readonly kind: 'request'; readonly message: JsonRpcRequest }
  | { readonly kind: 'notification'; readonly message: JsonRpcNotification }
  | { readonly kind: 'response'; readonly message: JsonRpcResponse }
  | { readonly kind: 'invalid'; readonly reason: string; readonly id: JsonRpcId | null };

const MAX_METHOD_LENGTH = 256;

export function classifyMessage(value: unknown): ClassifiedMessage {
  if (!isJsonObject(value)) return invalid('a JSON-RPC message must be a JSON object', null);
  const id = isId(value.id) ? value.id : null;
  if (value.jsonrpc !== '2.0') return invalid('"jsonrpc" must be "2.0"', id);

  if ('method' in value) {
    if (typeof value.method !== 'string' || value.method === '' || value.method.length > MAX_METHOD_LENGTH) {
      return invalid('"method" must be a non-empty string', id);
    }
    if (value.params !== undefined && !isJsonObject(value.params)) {
      return invalid('"params" must be an object when present (MCP uses named parameters)', id);
    }
    if (!('id' in value)) return { kind: 'notification', message: value as unknown as JsonRpcNotification };
    if (!isId(value.id)) return invalid('"id" must be a string or an integer', null);
    return { kind: 'request', message: value as unknown as JsonRpcRequest };
  }

  const hasResult = 'result' in value;
  const hasError = 'error' in value;
  if (hasResult === hasError) return invalid('a message needs "method", or exactly one of "result" and "error"', id);
  if (hasResult && (!isId(value.id) || !isJsonObject(value.result))) return invalid('a result needs an "id" and an object "result"', id);
  if (hasError && (!isJsonObject(value.error) || typeof value.error.code !== 'number' || typeof value.error.message !== 'string')) {
    return invalid('"error" must be an object with a numeric "code" and a string "message"', id);
  }
  return { kind: 'response', message: value as unknown as JsonRpcResponse };
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}

function invalid(reason: string, id: JsonRpcId | null): ClassifiedMessage {
  return { kind: 'invalid', reason, id };
}

export function resultResponse(id: JsonRpcId, result: JsonObject): JsonRpcResponse {
  return { jsonrpc: '2.0', id, result };
}

export function errorResponse(id: JsonRpcId | null, error: JsonRpcErrorObject): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error };
}
