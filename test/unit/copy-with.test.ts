// copyWith stands in for `{ ...object, ...additions }` on the request path: the same keys, values
// and order, and the same treatment of a `__proto__` key that JSON.parse made.
import { describe, expect, it } from 'vitest';
import { copyWith, copyWithout } from '../../src/protocol/copy-with.js';

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
