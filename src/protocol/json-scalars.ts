// JSON.stringify of a lone string or number is a call into V8's runtime, costly on a path run per
// call, for values that mostly need nothing of it: ids (request-id.ts
// lets only [A-Za-z0-9._-] through or makes a UUID; trace ids are hex; clients number their
// JSON-RPC requests) and numbers are written as they are when nothing in them is for JSON to
// escape or spell differently; anything else still goes through JSON.stringify. (A profile once put
// much of an audit line's cost on the request id's quoting; that was the id's own making, a tree of
// strings, fixed in request-id.ts: docs/decisions/0015-request-ids-without-async-local-storage.md.)

// eslint-disable-next-line no-control-regex -- the control characters JSON escapes are what it looks for
const NOTHING_TO_ESCAPE = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/** JSON.stringify(value) for a string. */
export function jsonString(value: string): string {
  return NOTHING_TO_ESCAPE.test(value) ? `"${value}"` : JSON.stringify(value);
}

/** JSON.stringify(value) for a number: a finite number's text is JSON's; JSON writes NaN and the infinities as null. */
export function jsonNumber(value: number): string {
  return Number.isFinite(value) ? `${value}` : 'null';
}

/** JSON.stringify(id) for a JSON-RPC id (a string, a number or null). */
export function jsonIdText(id: unknown): string {
  if (typeof id === 'number') return jsonNumber(id);
  if (typeof id === 'string') return jsonString(id);
  return JSON.stringify(id) ?? 'null';
}
