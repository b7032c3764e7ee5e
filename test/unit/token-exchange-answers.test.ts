// What a token endpoint's answer means (src/credentials/token-response.ts) and when its token is
// renewed (renewal.ts): pure, so every shape of answer is checked without a server.
import { describe, expect, it } from 'vitest';
import { CredentialRefusedError, CredentialUnavailableError } from '../../src/credentials/errors.js';
import { renewalTime } from '../../src/credentials/renewal.js';
import { DEFAULT_LIFETIME_MS, readTokenAnswer } from '../../src/credentials/token-response.js';

const ENDPOINT = 'https://idp.example/token';
const read = (statusCode: number, body: unknown, secrets: string[] = []) =>
  readTokenAnswer('github', ENDPOINT, { statusCode, body: typeof body === 'string' ? body : JSON.stringify(body) }, secrets);

function failure(statusCode: number, body: unknown, secrets: string[] = []): Error {
  try {
    read(statusCode, body, secrets);
  } catch (error) {
    return error as Error;
  }
  return expect.fail('expected the answer to be refused');
}

describe('a token endpoint answer', () => {
  it('200 with a Bearer token and expires_in is the token and its lifetime', () => {
    expect(read(200, { access_token: 'tok', token_type: 'Bearer', expires_in: 120 })).toEqual({ accessToken: 'tok', lifetimeMs: 120_000 });
  });

  it('takes the token type in any case, and N_A for a token that is not an OAuth access token', () => {
    expect(read(200, { access_token: 'tok', token_type: 'bearer', expires_in: 1 }).accessToken).toBe('tok');
    expect(read(200, { access_token: 'tok', token_type: 'N_A', issued_token_type: 'urn:ietf:params:oauth:token-type:jwt' }).accessToken).toBe('tok');
  });

  it('without expires_in has the default lifetime', () => {
    expect(read(200, { access_token: 'tok', token_type: 'Bearer' }).lifetimeMs).toBe(DEFAULT_LIFETIME_MS);
  });

  it('takes expires_in written as a string of digits', () => {
    expect(read(200, { access_token: 'tok', token_type: 'Bearer', expires_in: '90' }).lifetimeMs).toBe(90_000);
  });

  it.each([
    ['no access_token', { token_type: 'Bearer' }, 'without an access_token'],
    ['an empty access_token', { access_token: '', token_type: 'Bearer' }, 'without an access_token'],
    ['no token_type', { access_token: 'tok' }, 'without a token_type'],
    ['a DPoP token', { access_token: 'tok', token_type: 'DPoP' }, 'token_type "DPoP", which the gateway cannot present'],
    ['a negative expires_in', { access_token: 'tok', token_type: 'Bearer', expires_in: -1 }, 'expires_in that is not a number of seconds'],
    ['a word for expires_in', { access_token: 'tok', token_type: 'Bearer', expires_in: 'soon' }, 'expires_in that is not a number of seconds'],
    ['a JSON array', [], 'not a JSON object'],
    ['HTML', '<html></html>', 'not a JSON object'],
  ])('200 with %s is unavailable, and says what is wrong without the token', (_case, body, reason) => {
    const error = failure(200, body);
    expect(error).toBeInstanceOf(CredentialUnavailableError);
    expect(error.message).toContain(`its token endpoint ${ENDPOINT} answered 200`);
    expect(error.message).toContain(reason);
    expect(error.message).not.toContain('tok"');
  });

  it.each([400, 401, 403])('%i with an OAuth error is the provider\'s refusal', (status) => {
    const error = failure(status, { error: 'invalid_grant', error_description: 'token expired' });
    expect(error).toBeInstanceOf(CredentialRefusedError);
    expect(error).toMatchObject({ error: 'invalid_grant', description: 'token expired' });
  });

  it('a refusal without a description has none', () => {
    expect(failure(400, { error: 'invalid_target' })).toMatchObject({ error: 'invalid_target', description: undefined });
  });

  it('a description is one line, bounded, and carries nothing that was sent', () => {
    const secret = 'eyJ.secret-subject-token.sig';
    const error = failure(400, { error: 'invalid_grant', error_description: `bad\r\nline ${secret} ${'x'.repeat(1000)}` }, [secret]) as CredentialRefusedError;
    expect(error.description).toMatch(/^bad line \[redacted\] x+…$/);
    expect(error.description!.length).toBeLessThanOrEqual(300);
  });

  it.each([
    [503, 'busy', 'answered 503'],
    [500, { error: 'server_error' }, 'answered 500'],
    [429, { error: 'slow_down' }, 'answered 429'],
    [404, '<html>Not Found</html>', 'answered 404 without an OAuth error'],
    [400, { message: 'bad' }, 'answered 400 without an OAuth error'],
    [302, '', 'answered 302'],
  ])('%i (%j) is unavailable, not a refusal', (status, body, reason) => {
    const error = failure(status, body);
    expect(error).toBeInstanceOf(CredentialUnavailableError);
    expect(error.message).toContain(reason);
  });
});

describe('renewal', () => {
  it('is 30 seconds before expiry for a long-lived token', () => {
    expect(renewalTime(1_000_000, 3_600_000)).toBe(1_000_000 + 3_570_000);
  });

  it('is at 90% of the life of a token shorter than five minutes', () => {
    expect(renewalTime(1_000_000, 2_000)).toBe(1_000_000 + 1_800);
    expect(renewalTime(1_000_000, 60_000)).toBe(1_000_000 + 54_000);
  });

  it('of a token that expires at once is now', () => {
    expect(renewalTime(1_000_000, 0)).toBe(1_000_000);
  });
});
