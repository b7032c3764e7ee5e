// The request id a request without a usable X-Request-Id gets: a random version-4 UUID, made by
// hand as one flat string (request-id.ts says why), so it must stay a UUID and stay random.
import { describe, expect, it } from 'vitest';
import { freshRequestId, requestIdFrom } from '../../src/http/middleware/request-id.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('a fresh request id', () => {
  it('is a version-4 UUID, distinct from every other, across many batches of random bytes', () => {
    const ids = Array.from({ length: 3000 }, () => freshRequestId());
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('uses every hex digit in every free position, as random bytes would', () => {
    // 2,000 ids give each of the 30 free digit positions ~125 draws of 16 values: a position stuck
    // at one value, or a nibble never written, shows as a digit that never appears there.
    const ids = Array.from({ length: 2000 }, () => freshRequestId().replaceAll('-', ''));
    for (let position = 0; position < 32; position++) {
      if (position === 12 || position === 16) continue; // the version and the variant
      expect(new Set(ids.map((id) => id[position])).size, `position ${position}`).toBe(16);
    }
  });

  it("is the client's own id when that is one the log can carry, else a fresh one", () => {
    expect(requestIdFrom('client-id_1.2')).toBe('client-id_1.2');
    expect(requestIdFrom('has "quotes"')).toMatch(UUID_V4);
    expect(requestIdFrom('x'.repeat(129))).toMatch(UUID_V4);
    expect(requestIdFrom(undefined)).toMatch(UUID_V4);
  });
});
