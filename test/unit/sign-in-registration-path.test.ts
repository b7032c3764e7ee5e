// The registration guard (rate limit, bounded body, public clients, redirect URIs) must see every
// request oidc-provider would take as a registration: its router ignores case and one trailing
// slash, so the guard's path test does too (src/http/sign-in/listener.ts).
import { describe, expect, it } from 'vitest';
import { isRegistrationPath } from '../../src/http/sign-in/listener.js';

describe('isRegistrationPath', () => {
  it.each(['/oauth/register', '/oauth/register/', '/oauth/REGISTER', '/oauth/Register/', '/OAUTH/register'])('%s is registration', (path) => {
    expect(isRegistrationPath(path)).toBe(true);
  });

  it.each(['/oauth/register//', '/oauth/register/abc', '/oauth/registers', '/oauth//register', '/register', '/oauth/token', '/'])('%s is not', (path) => {
    expect(isRegistrationPath(path)).toBe(false);
  });
});
