// copyWith stands in for `{ ...object, ...additions }` on the request path: the same keys, values
// and order, and the same treatment of a `__proto__` key that JSON.parse made.
import { describe, expect, it } from 'vitest';
import { copyWith, copyWithout, metaWith, withMetaEntry } from '../../src/protocol/copy-with.js';

describe('copyWith', () => {
  it.each([
    ['new keys after the old ones', { content: [1], isError: false }, { resultType: 'complete', _meta: { a: 1 } }],
    ['an existing key keeps its place, with the new value', { a: 1, _meta: { x: 1 }, b: 2 }, { _meta: { y: 2 } }],
    ['an empty object', {}, { timeoutMs: 5 }],
    ['undefined values are kept as keys', { a: undefined }, { b: undefined }],
  ])('%s, as a spread', (_label, object, additions) => {
    const copy = copyWith(object, additions);
    const spread = { ...object, ...additions };
    expect(Object.keys(copy)).toEqual(Object.keys(spread));
    expect(copy).toEqual(spread);
    expect(copy).not.toBe(object);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(spread));
  });

  it('copies from nothing: the additions alone', () => {
    expect(copyWith(undefined, { a: 1 })).toEqual({ a: 1 });
  });

  it('never changes the original', () => {
    const object = { a: 1 };
    copyWith(object, { b: 2 });
    expect(object).toEqual({ a: 1 });
  });

  it('keeps a __proto__ key from JSON as a plain property, never as the prototype', () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "name": "x"}') as Record<string, unknown>;
    const copy = copyWith(hostile, { extra: 1 });
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"polluted":true},"name":"x","extra":1}');
    expect(JSON.stringify(copy)).toBe(JSON.stringify({ ...hostile, extra: 1 }));
  });
});

describe('copyWithout', () => {
  const EXCLUDED = new Set(['_meta', 'requestState']);

  it('is an object rest: the other keys, in their order, and the original untouched', () => {
    const params = { name: 'echo', _meta: { a: 1 }, arguments: { x: 1 }, requestState: 's', z: undefined };
    const { _meta, requestState, ...rest } = params;
    const copy = copyWithout(params, EXCLUDED);
    expect(Object.keys(copy)).toEqual(Object.keys(rest));
    expect(copy).toEqual(rest);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(rest));
    expect(params).toEqual({ name: 'echo', _meta: { a: 1 }, arguments: { x: 1 }, requestState: 's', z: undefined });
    expect([_meta, requestState]).toEqual([{ a: 1 }, 's']);
  });

  it('keeps a __proto__ key from JSON as a plain property, as a rest does', () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "_meta": {}, "name": "x"}') as Record<string, unknown>;
    const copy = copyWithout(hostile, EXCLUDED);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
    const { _meta, ...rest } = hostile;
    expect(JSON.stringify(copy)).toBe(JSON.stringify(rest));
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"polluted":true},"name":"x"}');
  });
});

describe('withMetaEntry', () => {
  it.each<[string, { name: string; _meta?: unknown }]>([
    ['an object with a _meta', { name: 'x', _meta: { a: 1 } }],
    ['an object without one', { name: 'x' }],
    ['an object whose _meta is not an object', { name: 'x', _meta: ['no'] }],
  ])('is `{ ...object, _meta: { ...object._meta, [key]: value } }` for %s, the original untouched', (_label, object) => {
    const before = JSON.stringify(object);
    const meta = Array.isArray(object._meta) ? {} : (object._meta as object | undefined);
    const spread = { ...object, _meta: { ...meta, token: 7 } };
    const copy = withMetaEntry(object, 'token', 7);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(spread));
    expect(JSON.stringify(metaWith(object, 'token', 7))).toBe(JSON.stringify(spread._meta));
    expect(JSON.stringify(object)).toBe(before);
  });

  it('starts from nothing when there is no object', () => {
    expect(withMetaEntry(undefined, 'token', 7)).toEqual({ _meta: { token: 7 } });
  });

  it('keeps a __proto__ key of _meta from JSON as a plain property', () => {
    const hostile = JSON.parse('{"_meta": {"__proto__": {"polluted": true}}}') as { _meta: unknown };
    const copy = withMetaEntry(hostile, 'token', 7);
    expect(Object.getPrototypeOf(copy._meta)).toBe(Object.prototype);
    expect(JSON.stringify(copy)).toBe('{"_meta":{"__proto__":{"polluted":true},"token":7}}');
  });
});
