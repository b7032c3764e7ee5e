// Session ids are the only secret-ish thing a client holds for its session: 128 random bits make
// them unguessable, and base64url keeps them header-safe without escaping.
import { randomBytes } from 'node:crypto';

const SESSION_ID_BYTES = 16;
/** 16 bytes in unpadded base64url are always 22 characters. */
const WELL_FORMED_SESSION_ID = /^[A-Za-z0-9_-]{22}$/;

export function newSessionId(): string {
  return randomBytes(SESSION_ID_BYTES).toString('base64url');
}

/**
 * True when `value` could be an id that newSessionId made. A header that fails this is a 404 without
 * asking the store, so garbage (or a probe with a huge header) never costs a Redis round trip.
 */
export function isWellFormedSessionId(value: unknown): value is string {
  return typeof value === 'string' && WELL_FORMED_SESSION_ID.test(value);
}
