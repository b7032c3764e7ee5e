// Both eras' callers, and the options of a served request, flow through the same code on every
// request (Gateway.serve, the handlers, forwarding): objects of one shape keep it monomorphic in a
// gateway serving both eras. V8 gives two literals one hidden class when they have the same keys
// in the same order, which is what these tests hold (V8's own check, %HaveSameMap, needs a flag
// that vitest's workers do not run with).
import { describe, expect, it } from 'vitest';
import { withoutUrlElicitation } from '../../src/gateway/calls/ask-to-connect.js';
import { sessionCaller } from '../../src/gateway/caller.js';
import { serveOptions } from '../../src/gateway/gateway-types.js';
import { readEnvelope } from '../../src/gateway/modern/envelope.js';
import type { SessionRecord } from '../../src/session/store.js';

const session: SessionRecord = {
  id: 'AAAAAAAAAAAAAAAAAAAAAA',
  protocolVersion: '2025-11-25',
  clientInfo: { name: 'client', version: '1.0.0' },
  clientCapabilities: {},
  subscriptions: [],
  upstreamSessions: {},
  createdAt: 0,
};
const envelope = { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } };

describe('the shapes both eras share', () => {
  it('a 2026 caller has the keys of a 2025 one, in the same order', () => {
    const legacy = sessionCaller(session, undefined, 'req-1');
    const modern = readEnvelope(envelope, undefined, undefined, { requestId: 'req-2' });
    expect(Object.keys(modern)).toEqual(Object.keys(legacy));
    expect(modern.session).toBeUndefined();
  });

  it('a caller answered as one without URL elicitation keeps the shape, and loses only the URL mode', () => {
    const modern = readEnvelope(
      { _meta: { ...envelope._meta, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {}, url: {} }, sampling: {} } } },
      undefined,
      undefined,
      { requestId: 'req-3' },
    );
    const plain = withoutUrlElicitation(modern);
    expect(Object.keys(plain)).toEqual(Object.keys(modern));
    expect(plain.clientCapabilities).toEqual({ elicitation: { form: {} }, sampling: {} });
    expect(withoutUrlElicitation({ ...modern, clientCapabilities: { elicitation: { url: {} } } }).clientCapabilities).toEqual({});
  });

  it('serve options have the same keys however few are given', () => {
    const full = serveOptions({ send: () => {} }, () => Promise.resolve({}), { onCancel: () => () => {} }, { server: 's', answers: { inputResponses: {} } });
    expect(Object.keys(serveOptions(undefined))).toEqual(Object.keys(full));
  });
});
