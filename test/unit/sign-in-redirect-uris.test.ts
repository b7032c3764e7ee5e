// Which redirect URIs sign-in mode takes (src/signin/redirect-uris.ts): at registration, HTTPS or http
// on loopback with any port (RFC 8252) or a private-use scheme the operator lists; in a client ID
// metadata document, https on the document's own host or http on loopback. Each refusal says why.
import { describe, expect, it } from 'vitest';
import { isLoopbackRedirect, metadataRedirectProblem, redirectUriProblem } from '../../src/signin/redirect-uris.js';

describe('isLoopbackRedirect', () => {
  it.each(['http://127.0.0.1/callback', 'http://127.0.0.1:49152/callback', 'http://[::1]:8080/cb', 'http://localhost:3000/cb', 'http://LOCALHOST:3000/cb'])('%s is loopback', (uri) => {
    expect(isLoopbackRedirect(uri)).toBe(true);
  });

  it.each([
    'https://127.0.0.1/callback',
    'http://127.0.0.2/callback',
    'http://0.0.0.0/callback',
    'http://localhost.evil.example/callback',
    'http://127.0.0.1.evil.example/callback',
    'http://evil.example/127.0.0.1',
    'http://127.0.0.1@evil.example/callback',
    'cursor://127.0.0.1/callback',
    'not a url',
  ])('%s is not', (uri) => {
    expect(isLoopbackRedirect(uri)).toBe(false);
  });
});

describe('redirectUriProblem (registration)', () => {
  const none = new Set<string>();

  it.each(['https://client.example/callback', 'https://client.example:8443/cb?x=1', 'http://127.0.0.1:1234/callback', 'http://[::1]/cb', 'http://localhost/cb'])('takes %s', (uri) => {
    expect(redirectUriProblem(uri, none)).toBeUndefined();
  });

  it.each([
    ['http://evil.example/callback', 'http://evil.example/callback uses http on a host that is not loopback (127.0.0.1, [::1] or localhost)'],
    ['http://localhost.evil.example/cb', 'http://localhost.evil.example/cb uses http on a host that is not loopback (127.0.0.1, [::1] or localhost)'],
    ['https://client.example/cb#fragment', 'https://client.example/cb#fragment has a fragment'],
    ['https://user:secret@client.example/cb', 'https://user:secret@client.example/cb has user information'],
    ['http://127.0.0.1:80@evil.example/cb', 'http://127.0.0.1:80@evil.example/cb has user information'],
    ['javascript:alert(1)', 'javascript:alert(1) uses the scheme javascript, which is not allowed here (https, http on loopback)'],
    ['cursor://callback', 'cursor://callback uses the scheme cursor, which is not allowed here (https, http on loopback)'],
    ['/relative/callback', '/relative/callback is not a URL'],
  ])('refuses %s', (uri, problem) => {
    expect(redirectUriProblem(uri, none)).toBe(problem);
  });

  it('takes the private-use schemes the operator lists, and names them when refusing another', () => {
    const schemes = new Set(['cursor', 'vscode']);
    expect(redirectUriProblem('cursor://anysphere.cursor-retrieval/oauth/callback', schemes)).toBeUndefined();
    expect(redirectUriProblem('zed://callback', schemes)).toBe('zed://callback uses the scheme zed, which is not allowed here (https, http on loopback, cursor, vscode)');
  });

  it('does not let a listed "http" scheme open http off loopback', () => {
    expect(redirectUriProblem('http://evil.example/cb', new Set(['http']))).toMatch(/uses http on a host that is not loopback/);
  });
});

describe('metadataRedirectProblem (client ID metadata documents)', () => {
  const clientId = 'https://client.example/oauth/metadata.json';

  it.each(['https://client.example/callback', 'https://client.example/a/b?c=d', 'http://127.0.0.1:5555/callback', 'http://localhost/cb', 'http://[::1]:1/cb'])('takes %s', (uri) => {
    expect(metadataRedirectProblem(clientId, uri)).toBeUndefined();
  });

  it.each([
    ['https://evil.example/callback', 'https://evil.example/callback is not on client.example, the host of its metadata document'],
    ['https://client.example.evil.example/cb', 'https://client.example.evil.example/cb is not on client.example, the host of its metadata document'],
    ['https://sub.client.example/cb', 'https://sub.client.example/cb is not on client.example, the host of its metadata document'],
    ['https://client.example:8443/cb', 'https://client.example:8443/cb is not on client.example, the host of its metadata document'],
    // Plain http on the document's own host would send the code in the clear.
    ['http://client.example/callback', 'http://client.example/callback uses http on a host that is not loopback (127.0.0.1, [::1] or localhost)'],
    ['https://client.example/cb#x', 'https://client.example/cb#x has a fragment'],
    ['https://attacker@client.example/cb', 'https://attacker@client.example/cb has user information'],
    ['cursor://client.example/cb', 'cursor://client.example/cb uses the scheme cursor, which is not allowed here (https, http on loopback)'],
  ])('refuses %s', (uri, problem) => {
    expect(metadataRedirectProblem(clientId, uri)).toBe(problem);
  });

  it('compares the port too: a document on a port is trusted for that port', () => {
    expect(metadataRedirectProblem('https://client.example:8443/metadata.json', 'https://client.example:8443/cb')).toBeUndefined();
    expect(metadataRedirectProblem('https://client.example:8443/metadata.json', 'https://client.example/cb')).toMatch(/is not on client\.example:8443/);
  });
});
