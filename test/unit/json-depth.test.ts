import { describe, expect, it } from 'vitest';
import { jsonDepthExceeds } from '../../src/http/json-depth.js';

describe('jsonDepthExceeds', () => {
  it('counts arrays and objects but not brackets inside strings', () => {
    expect(jsonDepthExceeds('[[[1]]]', 3)).toBe(false);
    expect(jsonDepthExceeds('[[[[1]]]]', 3)).toBe(true);
    expect(jsonDepthExceeds('{"a":{"b":{"c":1}}}', 3)).toBe(false);
    expect(jsonDepthExceeds('{"a":"[[[[[[[[[[{{{{{{"}', 2)).toBe(false);
    expect(jsonDepthExceeds('["\\"[[[[[[["]', 2)).toBe(false);
  });

  it('stops early on a very deep text', () => {
    const deep = '['.repeat(2_000_000);
    const started = performance.now();
    expect(jsonDepthExceeds(deep)).toBe(true);
    expect(performance.now() - started).toBeLessThan(50);
  });
});
