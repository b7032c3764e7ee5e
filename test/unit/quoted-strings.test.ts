import { describe, expect, it } from 'vitest';
import { QuotedStrings } from '../../src/observe/quoted-strings.js';

describe('QuotedStrings', () => {
  it('gives what JSON.stringify gives, the first time and every time after', () => {
    const quoted = new QuotedStrings();
    const values = ['tools/call', 'everything', 'say "hi"\\', 'line\nbreak\u2028', '\ud800 lone', 'caf\u00e9 \ud83d\ude00', ''];
    for (let round = 0; round < 3; round++) {
      for (const value of values) expect(quoted.of(value)).toBe(JSON.stringify(value));
    }
    expect(quoted.size).toBe(values.length);
  });

  it('never holds more than its capacity, and answers right after it starts again', () => {
    const quoted = new QuotedStrings(4);
    const values = Array.from({ length: 50 }, (_, index) => `uri://item/${index}`);
    for (const value of [...values, ...values.reverse()]) {
      expect(quoted.of(value)).toBe(JSON.stringify(value));
      expect(quoted.size).toBeLessThanOrEqual(4);
    }
  });

  it('keeps no long value, however often it comes', () => {
    const quoted = new QuotedStrings(16, 8);
    const long = `file:///${'a/'.repeat(1000)}"x"`;
    for (let round = 0; round < 3; round++) {
      expect(quoted.of(long)).toBe(JSON.stringify(long));
      expect(quoted.of('eight ch')).toBe('"eight ch"');
    }
    expect(quoted.size).toBe(1);
  });
});
