// The memory store hands out the very objects it keeps; freezing them (after a private copy) makes a
// caller's accidental mutation throw instead of silently changing the session for everyone, which
// costs less per request than copying on every read.

/** A deep copy of JSON-like data, frozen all the way down. */
export function frozenCopy<T>(value: T): T {
  return deepFreeze(structuredClone(value));
}

/** The same value, frozen all the way down (for data nobody else holds, e.g. just parsed). */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
