import { describe, expect, it } from 'vitest';
import { ConsecutiveFailures } from '../../src/upstream/circuit.js';

describe('ConsecutiveFailures', () => {
  it('opens exactly at the threshold of failures in a row', () => {
    const circuit = new ConsecutiveFailures(3);
    expect([circuit.failed(), circuit.failed(), circuit.failed(), circuit.failed()]).toEqual([false, false, true, false]);
  });

  it('starts counting again after a success', () => {
    const circuit = new ConsecutiveFailures(2);
    circuit.failed();
    circuit.succeeded();
    expect(circuit.failed()).toBe(false);
    expect(circuit.failed()).toBe(true);
  });

  it('refuses a threshold that is not a positive integer', () => {
    expect(() => new ConsecutiveFailures(0)).toThrow(RangeError);
  });
});
