// How errors that earlier revisions or upstreams use are turned into ones a 2026 client may receive.
// The codes are the catalogue's (protocol/error-catalogue.ts).
import { ERRORS, GATEWAY_CODES, SPEC_RESERVED_CODES } from '../../protocol/error-catalogue.js';
import type { JsonRpcErrorObject } from '../../protocol/json-rpc.js';

/** The codes 2026-07-28 defines in the range it reserves. */
const DEFINED_RESERVED = new Set<number>([ERRORS.HeaderMismatch.code, ERRORS.MissingRequiredClientCapability.code, ERRORS.UnsupportedProtocolVersion.code]);
const within = (code: number, range: { readonly min: number; readonly max: number }) => code >= range.min && code <= range.max;

/**
 * A 2026 client never gets -32002 (resource not found is -32602 now), nor a code from the reserved
 * range that the spec does not define, nor (as far as the gateway decides) the gateway's own range
 * -32000..-32019: those become -32603 with the original code in `data`, the message kept.
 */
export function modernError(error: JsonRpcErrorObject): JsonRpcErrorObject {
  const { code } = error;
  if (code === ERRORS.ResourceNotFound.code) return { ...error, code: ERRORS.InvalidParams.code };
  const reserved = within(code, SPEC_RESERVED_CODES) && !DEFINED_RESERVED.has(code);
  if (!reserved && !within(code, GATEWAY_CODES)) return error;
  const data = error.data === undefined ? { code } : { code, detail: error.data };
  return { code: ERRORS.InternalError.code, message: error.message, data };
}
