// `{ ...object, ...additions }` written as a loop, for the copies made on every request. On Node 20's
// V8 each key that an object literal adds after a spread, when the spread object lacks it, is slow
// (the copy's map has no transition to reuse), about ten times this loop on the same shapes. A key
// the object already has costs nothing extra either way, so `{ ...params, name }` on a tools/call
// stays a spread. See docs/decisions/0014-object-shapes-on-the-hot-path.md.

/** A fresh object with `object`'s own enumerable keys, then `additions`' (which win), in that order. */
export function copyWith<T extends object, A extends object>(object: T | undefined, additions: A): Omit<T, keyof A> & A {
  const copy: Record<string, unknown> = {};
  if (object !== undefined) {
    for (const key of Object.keys(object)) setOwn(copy, key, (object as Record<string, unknown>)[key]);
  }
  for (const key of Object.keys(additions)) setOwn(copy, key, (additions as Record<string, unknown>)[key]);
  return copy as Omit<T, keyof A> & A;
}

/** `object._meta` (when it is an object) with `key` set, as a fresh object: `{ ...object._meta, [key]: value }`. */
export function metaWith(object: { readonly _meta?: unknown } | undefined, key: string, value: unknown): Record<string, unknown> {
  const meta = object?._meta;
  const own = typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? meta : undefined;
  return copyWith(own, { [key]: value });
}

/** `object` with `key` set in a fresh copy of its `_meta`: `{ ...object, _meta: { ...object._meta, [key]: value } }`. */
export function withMetaEntry<T extends object>(object: T | undefined, key: string, value: unknown): Omit<T, '_meta'> & { _meta: Record<string, unknown> } {
  return copyWith(object, { _meta: metaWith(object, key, value) });
}

/**
 * `const { a, b, ...rest } = object` written as a loop, for the same reason: an object rest is a
 * runtime call on Node 20 (docs/decisions/0014-object-shapes-on-the-hot-path.md).
 */
export function copyWithout<T extends object>(object: T, excluded: ReadonlySet<string>): Partial<T> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(object)) {
    if (!excluded.has(key)) setOwn(copy, key, (object as Record<string, unknown>)[key]);
  }
  return copy as Partial<T>;
}

/** As a spread defines keys: `__proto__` (a key JSON.parse can produce) becomes a plain property, never the prototype. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}
