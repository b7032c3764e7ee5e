import { describe, expect, it } from 'vitest';
import { RequestStateSealer } from '../../src/gateway/modern/request-state.js';

const body = { kind: 'relay', server: 'everything' } as const;
const binding = { sub: 'alice', method: 'tools/call', params: { name: 'everything__echo', arguments: {} } };

describe('a 2026 requestState', () => {
  const sealer = new RequestStateSealer('a secret of enough length', 60_000);

  it('is good on the endpoint that issued it', () => {
    expect(sealer.unseal(sealer.seal(body, { ...binding, endpoint: 'support' }), { ...binding, endpoint: 'support' })).toEqual({ ok: true, body });
    expect(sealer.unseal(sealer.seal(body, binding), binding)).toEqual({ ok: true, body });
  });

  it('is refused on another endpoint, the default one included, and from the default one elsewhere', () => {
    const reason = 'requestState was issued on another endpoint';
    expect(sealer.unseal(sealer.seal(body, { ...binding, endpoint: 'support' }), { ...binding, endpoint: 'ops' })).toEqual({ ok: false, reason });
    expect(sealer.unseal(sealer.seal(body, { ...binding, endpoint: 'support' }), binding)).toEqual({ ok: false, reason });
    expect(sealer.unseal(sealer.seal(body, binding), { ...binding, endpoint: 'support' })).toEqual({ ok: false, reason });
  });
});
