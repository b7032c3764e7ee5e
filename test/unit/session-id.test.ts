import { describe, expect, it } from 'vitest';
import { isWellFormedSessionId, newSessionId } from '../../src/session/session-id.js';

describe('session ids', () => {
  it('are 22 base64url characters (128 random bits)', () => {
    expect(newSessionId()).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('do not repeat', () => {
    const ids = new Set(Array.from({ length: 1_000 }, () => newSessionId()));
    expect(ids.size).toBe(1_000);
  });

  it('are recognised as well formed', () => {
    expect(isWellFormedSessionId(newSessionId())).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['too short', 'abc'],
    ['one character too long', `${newSessionId()}A`],
    ['padded base64', 'AAAAAAAAAAAAAAAAAAAA=='],
    ['a UUID', '123e4567-e89b-12d3-a456-426614174000'],
    ['not a string', undefined],
  ])('reject garbage: %s', (_, value) => {
    expect(isWellFormedSessionId(value)).toBe(false);
  });
});
