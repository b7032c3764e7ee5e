// What the gateway reads from an upstream's URL elicitations (2025-11-25) and how a 2026 client is
// asked for them: only well-formed URL-mode entries count, and 2026's input requests carry no
// elicitationId (that revision has none).
import { describe, expect, it } from 'vitest';
import { upstreamElicitationKey, urlElicitationIdOf, urlElicitationsOf, urlInputRequests } from '../../src/gateway/calls/upstream-url-elicitations.js';

const good = { mode: 'url', elicitationId: 'e-1', url: 'https://example.com/confirm', message: 'Confirm' };

describe("an upstream's URL elicitations", () => {
  it('reads the well-formed URL-mode entries of a -32042 error, and nothing else', () => {
    expect(urlElicitationsOf({ elicitations: [good, { ...good, mode: 'form' }, { ...good, elicitationId: 3 }, 'x'] })).toEqual([{ elicitationId: 'e-1', url: good.url, message: 'Confirm' }]);
    expect(urlElicitationsOf(undefined)).toEqual([]);
    expect(urlElicitationsOf({ elicitations: 'no' })).toEqual([]);
  });

  it('names the elicitationId of a URL-mode elicitation/create only', () => {
    expect(urlElicitationIdOf('elicitation/create', good)).toBe('e-1');
    expect(urlElicitationIdOf('elicitation/create', { ...good, mode: 'form' })).toBeUndefined();
    expect(urlElicitationIdOf('sampling/createMessage', good)).toBeUndefined();
  });

  it("keys an upstream's elicitation by its server, so that another server cannot complete it", () => {
    expect(upstreamElicitationKey('a', 'e-1')).not.toBe(upstreamElicitationKey('b', 'e-1'));
  });

  it('asks a 2026 client with URL-mode input requests that carry no elicitationId', () => {
    expect(urlInputRequests([{ elicitationId: 'e-1', url: good.url, message: 'Confirm' }])).toEqual({
      'url-1': { method: 'elicitation/create', params: { mode: 'url', url: good.url, message: 'Confirm' } },
    });
  });
});
