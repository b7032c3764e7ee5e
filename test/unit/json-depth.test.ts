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

  it('judges a text by its brackets of both kinds together, at the limit and one past it', () => {
    expect(jsonDepthExceeds('{"a":[{"b":[1]}]}', 4)).toBe(false);
    expect(jsonDepthExceeds('{"a":[{"b":[1]}]}', 3)).toBe(true);
    expect(jsonDepthExceeds('[{"a":1},{"b":2},{"c":3}]', 2)).toBe(false);
  });

  it('takes a text with no more brackets than the limit as shallow enough, and scans one with more', () => {
    expect(jsonDepthExceeds('{"a":"]]]]}}}}","b":[1]}', 2)).toBe(false);
    expect(jsonDepthExceeds('[[[]]]', 3)).toBe(false);
    expect(jsonDepthExceeds('{"a":"{","b":[1]}', 2)).toBe(false);
    expect(jsonDepthExceeds('{"a":"{","b":[[1]]}', 2)).toBe(true);
  });

  // A scan, not a recursion: two million levels are refused without exhausting the stack. (How fast
  // is the bench's business, never a test's.)
  it('refuses a very deep text, and one that is deep only somewhere in the middle', () => {
    expect(jsonDepthExceeds('['.repeat(2_000_000))).toBe(true);
    expect(jsonDepthExceeds(`[${'['.repeat(200)}${']'.repeat(200)}]`, 100)).toBe(true);
    expect(jsonDepthExceeds(`[${'[1],'.repeat(10_000)}1]`, 2)).toBe(false);
  });
});
