// The error codes 2026-07-28 defines in the range it reserves (-32020..-32099), and how errors that
// earlier revisions or upstreams use are turned into ones a 2026 client may receive.
import type { JsonRpcErrorObject } from '../../protocol/json-rpc.js';

export const ModernCode = {
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

const DEFINED_RESERVED = new Set<number>(Object.values(ModernCode));
const RESOURCE_NOT_FOUND_2025 = -32002;

/**
 * A 2026 client never gets -32002 (resource not found is -32602 now), nor a code from the reserved
 * range that the spec does not define, nor (as far as the gateway decides) the legacy range
 * -32000..-32019: those become -32603 with the original code in `data`, the message kept.
 */
export function modernError(error: JsonRpcErrorObject): JsonRpcErrorObject {
  const { code } = error;
  if (code === RESOURCE_NOT_FOUND_2025) return { ...error, code: -32602 };
  const reserved = code <= -32020 && code >= -32099 && !DEFINED_RESERVED.has(code);
  const legacy = code <= -32000 && code >= -32019;
  if (!reserved && !legacy) return error;
  const data = error.data === undefined ? { code } : { code, detail: error.data };
  return { code: -32603, message: error.message, data };
}
