// How exchanged tokens are sealed for the shared Redis (src/credentials/token-sealing.ts).
import { describe, expect, it } from 'vitest';
import { TokenSealer } from '../../src/credentials/token-sealing.js';

const KEY = 'the-credential-key-shared-by-replicas';

describe('a sealed token', () => {
  it('opens with the same credential key at the same place, on another replica too', () => {
    const sealed = new TokenSealer(KEY).seal('the-token', 'prefix:credential:abc');
    expect(new TokenSealer(KEY).open(sealed, 'prefix:credential:abc')).toBe('the-token');
    expect(sealed).not.toContain('the-token');
  });

  it('is different every time, so equal tokens cannot be told apart in Redis', () => {
    const sealer = new TokenSealer(KEY);
    expect(sealer.seal('the-token', 'k')).not.toBe(sealer.seal('the-token', 'k'));
  });

  it('does not open with another credential key', () => {
    const sealed = new TokenSealer(KEY).seal('the-token', 'k');
    expect(new TokenSealer('another-credential-key-of-enough-length').open(sealed, 'k')).toBeUndefined();
  });

  it('does not open under another key of the cache', () => {
    const sealer = new TokenSealer(KEY);
    expect(sealer.open(sealer.seal('the-token', 'alice'), 'bob')).toBeUndefined();
  });

  it('does not open once any byte was changed (iv, ciphertext or tag), or when it is not a sealed value at all', () => {
    const sealer = new TokenSealer(KEY);
    const bytes = Buffer.from(sealer.seal('the-token', 'k'), 'base64url');
    for (let index = 0; index < bytes.length; index++) {
      const altered = Buffer.from(bytes);
      altered[index] = altered[index]! ^ 0x01;
      expect(sealer.open(altered.toString('base64url'), 'k')).toBeUndefined();
    }
    expect(sealer.open(bytes.subarray(0, bytes.length - 1).toString('base64url'), 'k')).toBeUndefined();
    expect(sealer.open('', 'k')).toBeUndefined();
    expect(sealer.open('not sealed', 'k')).toBeUndefined();
  });

  it('needs a credential key of at least 32 characters', () => {
    expect(() => new TokenSealer('short')).toThrow(/at least 32 characters/);
  });
});
