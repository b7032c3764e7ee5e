// The status page's sign-in cookies (http/admin/session-cookie.ts) and where a sign-in may send the
// browser afterwards (browser-sign-in.ts): sealed so only a gateway with the same secret opens
// them, each kind only as itself; return paths on this origin only.
import { describe, expect, it } from 'vitest';
import { safeReturnPath } from '../../src/http/admin/browser-sign-in.js';
import { SessionSealer } from '../../src/http/admin/session-cookie.js';

const SECRET = 'a-secret-of-at-least-thirty-two-characters';
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

describe('the session cookie', () => {
  it('opens what it sealed, with the same secret only', async () => {
    const sealer = new SessionSealer(SECRET);
    const session = { sub: 'alice', scopes: ['switchboard:admin'], groups: ['admins'], email: 'alice@example.com', exp: inAnHour() };
    const sealed = await sealer.sealSession(session);
    expect(sealed).not.toContain('alice');
    expect(await sealer.openSession(sealed)).toEqual(session);
    expect(await new SessionSealer(`${SECRET}-other`).openSession(sealed)).toBeUndefined();
  });

  it('refuses a changed, expired or foreign cookie', async () => {
    const sealer = new SessionSealer(SECRET);
    const sealed = await sealer.sealSession({ sub: 'alice', scopes: [], groups: [], exp: inAnHour() });
    const parts = sealed.split('.');
    parts[3] = `${parts[3]!.startsWith('A') ? 'B' : 'A'}${parts[3]!.slice(1)}`;
    expect(await sealer.openSession(parts.join('.'))).toBeUndefined();
    expect(await sealer.openSession(await sealer.sealSession({ sub: 'alice', scopes: [], groups: [], exp: Math.floor(Date.now() / 1000) - 5 }))).toBeUndefined();
    expect(await sealer.openSession('not-a-cookie')).toBeUndefined();
    // The sign-in's pending state is sealed under another key: it is no session.
    const pending = await sealer.sealPending({ state: 's', verifier: 'v', redirectUri: 'http://127.0.0.1/signin/callback', returnTo: '/status' });
    expect(await sealer.openSession(pending)).toBeUndefined();
    expect(await sealer.openPending(pending)).toMatchObject({ state: 's', verifier: 'v' });
    expect(await sealer.openPending(sealed)).toBeUndefined();
  });

  it('keeps a person with very many groups under a cookie\'s size', async () => {
    const groups = Array.from({ length: 500 }, (_, index) => `a-rather-long-group-name-${index}`);
    const sealed = await new SessionSealer(SECRET).sealSession({ sub: 'alice', scopes: ['switchboard:admin'], groups, exp: inAnHour() });
    expect(sealed.length).toBeLessThan(3_800);
  });
});

describe('the path a sign-in returns to', () => {
  it('keeps paths of this origin', () => {
    expect(safeReturnPath('/status')).toBe('/status');
    expect(safeReturnPath('/status?live=1')).toBe('/status?live=1');
    expect(safeReturnPath(undefined)).toBe('/status');
  });

  it.each(['https://evil.example/', '//evil.example/status', '/\\evil.example', '\\\\evil.example', 'javascript:alert(1)', 'status', '/st atus', `/${'a'.repeat(600)}`])(
    'sends %s to /status',
    (hostile) => {
      expect(safeReturnPath(hostile)).toBe('/status');
    },
  );
});
