import { describe, expect, it } from 'vitest';
import { CredentialUnavailableError } from '../../src/credentials/errors.js';
import { RecentOutages } from '../../src/credentials/recent-outages.js';

describe('RecentOutages', () => {
  const error = new CredentialUnavailableError('github', 'its token endpoint did not answer within 2000 ms');

  it('answers an outage for its spell, doubling while it goes on, up to the longest', () => {
    let clock = 0;
    const outages = new RecentOutages({ initialMs: 1_000, maxMs: 4_000 }, () => clock);
    const spells: number[] = [];
    for (let failure = 0; failure < 4; failure++) {
      outages.remember('alice', error);
      const began = clock;
      while (outages.recall('alice') === error) clock += 100;
      spells.push(clock - began);
    }
    expect(spells).toEqual([1_000, 2_000, 4_000, 4_000]);
  });

  it('keeps callers apart, forgets at the first success, and starts again short after a long quiet', () => {
    let clock = 0;
    const outages = new RecentOutages({ initialMs: 1_000, maxMs: 4_000 }, () => clock);
    outages.remember('alice', error);
    expect(outages.recall('bob')).toBeUndefined();
    outages.forget('alice');
    expect(outages.recall('alice')).toBeUndefined();

    outages.remember('bob', error);
    clock += 1_000 + 4_000; // the spell, then more quiet than the longest spell
    outages.remember('bob', error);
    clock += 999;
    expect(outages.recall('bob')).toBe(error);
    clock += 1;
    expect(outages.recall('bob')).toBeUndefined();
  });

  it('remembers nothing with a first spell of 0', () => {
    const outages = new RecentOutages({ initialMs: 0, maxMs: 0 });
    outages.remember('alice', error);
    expect(outages.recall('alice')).toBeUndefined();
  });
});
