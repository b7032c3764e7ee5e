import { describe, expect, it } from 'vitest';

import { parseAuthChallenges, readBearerChallenge } from '../../src/upstream/auth-challenge.js';
import { UpstreamAuthChallengeError } from '../../src/upstream/errors.js';

const plain = (header: string) => parseAuthChallenges(header).map(({ scheme, params, token68 }) => ({ scheme, params: { ...params }, ...(token68 !== undefined && { token68 }) }));

describe('reading WWW-Authenticate', () => {
  it('reads the challenge of GitHub\'s MCP server', () => {
    const header =
      'Bearer error="invalid_request", error_description="No access token was provided in this request", resource_metadata="https://api.githubcopilot.com/.well-known/oauth-protected-resource/mcp/"';
    expect(plain(header)).toEqual([
      {
        scheme: 'Bearer',
        params: {
          error: 'invalid_request',
          error_description: 'No access token was provided in this request',
          resource_metadata: 'https://api.githubcopilot.com/.well-known/oauth-protected-resource/mcp/',
        },
      },
    ]);
  });

  it('reads an Atlassian-like challenge with a realm and an empty parameter', () => {
    expect(plain('Bearer realm="", resource_metadata="https://mcp.atlassian.example/.well-known/oauth-protected-resource", error="invalid_token"')).toEqual([
      { scheme: 'Bearer', params: { realm: '', resource_metadata: 'https://mcp.atlassian.example/.well-known/oauth-protected-resource', error: 'invalid_token' } },
    ]);
  });

  it('reads the example of RFC 9110: several challenges, escapes, unquoted values', () => {
    expect(plain('Newauth realm="apps", type=1, title="Login to \\"apps\\"", Basic realm="simple"')).toEqual([
      { scheme: 'Newauth', params: { realm: 'apps', type: '1', title: 'Login to "apps"' } },
      { scheme: 'Basic', params: { realm: 'simple' } },
    ]);
  });

  it('keeps commas, equals signs and escaped backslashes inside a quoted string', () => {
    expect(plain('Bearer error_description="the token, as sent, had aud=x and \\\\ in it", scope="repo, read:org"')).toEqual([
      { scheme: 'Bearer', params: { error_description: 'the token, as sent, had aud=x and \\ in it', scope: 'repo, read:org' } },
    ]);
  });

  it('reads several challenges joined into one header, as fetch joins repeated headers', () => {
    expect(plain('Basic realm="gw", Bearer resource_metadata="https://x/.well-known/oauth-protected-resource", error="invalid_token", Negotiate')).toEqual([
      { scheme: 'Basic', params: { realm: 'gw' } },
      { scheme: 'Bearer', params: { resource_metadata: 'https://x/.well-known/oauth-protected-resource', error: 'invalid_token' } },
      { scheme: 'Negotiate', params: {} },
    ]);
  });

  it('tells a token68 from parameters', () => {
    expect(plain('Negotiate YIIBhgYGKwYBBQUCoIIBejCCAXagMDAu+/==, Bearer error=invalid_token')).toEqual([
      { scheme: 'Negotiate', params: {}, token68: 'YIIBhgYGKwYBBQUCoIIBejCCAXagMDAu+/==' },
      { scheme: 'Bearer', params: { error: 'invalid_token' } },
    ]);
  });

  it('takes spaces around `=`, names in any case, and the first of a repeated name', () => {
    expect(plain('bearer  Error = "invalid_token" ,error="other",\tScope=read')).toEqual([{ scheme: 'bearer', params: { error: 'invalid_token', scope: 'read' } }]);
  });

  it('treats __proto__ and constructor as plain parameters', () => {
    const [challenge] = parseAuthChallenges('Bearer __proto__="x", constructor="y"');
    expect(Object.entries(challenge!.params)).toEqual([
      ['__proto__', 'x'],
      ['constructor', 'y'],
    ]);
    expect(parseAuthChallenges('Bearer realm="x"')[0]!.params.constructor).toBeUndefined();
  });

  it.each([
    '',
    ' , ,, ',
    '"',
    '=',
    '==, =',
    'Bearer "unterminated',
    'Bearer error="unterminated, scope="a',
    'Bearer realm="x" junk, Basic realm="y"',
    'Bearer ,,, realm',
    '=value, Bearer error="invalid_token"',
    'a=b',
    'Bearer \\"', 
    '\u0000\u00ff\ud800, Bearer',
    'Bearer error=',
    'Bearer ' + 'x="y", '.repeat(10_000),
  ])('never throws on malformed input (%j)', (header) => {
    expect(() => parseAuthChallenges(header)).not.toThrow();
  });

  it('keeps what it can of a header with a malformed part', () => {
    expect(plain('=value, Bearer error="invalid_token"')).toEqual([{ scheme: 'Bearer', params: { error: 'invalid_token' } }]);
    expect(plain('Bearer realm="x" junk, error="invalid_token"')).toEqual([{ scheme: 'Bearer', params: { realm: 'x', error: 'invalid_token' } }]);
    expect(plain('Bearer error_description="cut off')).toEqual([{ scheme: 'Bearer', params: { error_description: 'cut off' } }]);
  });

  it('reads an unquoted URL as the URL, as some servers send it', () => {
    expect(plain('Bearer resource_metadata=https://x.example/.well-known/oauth-protected-resource, error=invalid_token')).toEqual([
      { scheme: 'Bearer', params: { resource_metadata: 'https://x.example/.well-known/oauth-protected-resource', error: 'invalid_token' } },
    ]);
  });
});

describe('the Bearer challenge of a refusal', () => {
  it('picks resource_metadata, error, error_description and the scopes', () => {
    expect(
      readBearerChallenge('Basic realm="x", Bearer error="insufficient_scope", error_description="needs more", scope="repo  read:org", resource_metadata="https://x/.well-known/oauth-protected-resource"'),
    ).toEqual({ resourceMetadata: 'https://x/.well-known/oauth-protected-resource', error: 'insufficient_scope', errorDescription: 'needs more', scope: ['repo', 'read:org'] });
  });

  it('prefers the Bearer challenge that names its metadata', () => {
    expect(readBearerChallenge('Bearer realm="proxy", Bearer resource_metadata="https://up/.well-known/oauth-protected-resource"')).toEqual({
      resourceMetadata: 'https://up/.well-known/oauth-protected-resource',
    });
  });

  it('has nothing to say without a Bearer challenge', () => {
    expect(readBearerChallenge(null)).toBeUndefined();
    expect(readBearerChallenge('')).toBeUndefined();
    expect(readBearerChallenge('Basic realm="x"')).toBeUndefined();
    expect(readBearerChallenge('BEARER')).toEqual({});
  });
});

describe('an upstream that refuses the gateway\'s credentials', () => {
  it('is told with its error, its description and where its authorization is described', () => {
    const error = new UpstreamAuthChallengeError(
      'github',
      401,
      readBearerChallenge('Bearer error="invalid_token", error_description="token expired", resource_metadata="https://api.example/.well-known/oauth-protected-resource"'),
    );
    expect(error.message).toBe(
      'upstream "github" refused the gateway\'s credentials (401 invalid_token: token expired); its authorization is described at https://api.example/.well-known/oauth-protected-resource',
    );
    expect(error).toMatchObject({ name: 'UpstreamAuthChallengeError', server: 'github', status: 401 });
  });

  it('is told with the scope a 403 asks for', () => {
    expect(new UpstreamAuthChallengeError('jira', 403, readBearerChallenge('Bearer error="insufficient_scope", scope="read:jira-work"')).message).toBe(
      'upstream "jira" refused the gateway\'s credentials (403 insufficient_scope); it asks for the scope "read:jira-work"',
    );
  });

  it('is told with the status alone when there is no challenge', () => {
    expect(new UpstreamAuthChallengeError('jira', 401, undefined).message).toBe('upstream "jira" refused the gateway\'s credentials (401)');
  });

  it('shows the upstream\'s words without control characters and not at any length', () => {
    const message = new UpstreamAuthChallengeError('x', 401, { error: 'invalid_token', errorDescription: `line\r\nbreak ${'y'.repeat(500)}` }).message;
    expect(message).not.toMatch(/[\r\n]/);
    expect(message).toContain('linebreak yyy');
    expect(message.length).toBeLessThan(300);
  });
});
