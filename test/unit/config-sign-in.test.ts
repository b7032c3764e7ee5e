// auth.signIn as the config file states it: what a working file looks like with its defaults, and
// the mistakes an operator makes, each named by its key path.
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { problemsOf } from './config-test-helpers.js';

const SIGN_IN = `
server: {publicUrl: https://mcp.example.com/mcp}
auth:
  requiredScopes: [mcp]
  signIn:
    provider: {issuer: https://login.microsoftonline.com/0b3e6c2a-9c1e-4a55-9f0e-2a3d1f7c9b10/v2.0, clientId: abc, clientSecret: s3cret}
    secret: 0123456789abcdef0123456789abcdef
`;

function problemAt(problems: readonly { path: string; message: string }[], path: string): string | undefined {
  return problems.find((problem) => problem.path === path)?.message;
}

describe('auth.signIn', () => {
  it('parses a minimal file with its defaults', () => {
    const config = parseConfigText(SIGN_IN, 'yaml', {});
    const signIn = config.auth?.signIn;
    expect(signIn?.provider.scopes).toEqual(['openid', 'email', 'profile']);
    expect(signIn?.claims).toEqual({ sub: 'sub', email: 'email', name: 'name', groups: 'groups' });
    expect(signIn?.registration).toMatchObject({ enabled: true, perMinutePerAddress: 20, allowedSchemes: [] });
    expect(signIn?.clientMetadataDocuments).toMatchObject({ enabled: true, allowLoopbackForTests: false });
    expect(signIn?.tokens).toEqual({ accessTokenSeconds: 3600, refreshTokenDays: 30, authorizationCodeSeconds: 60 });
  });

  it("refuses Entra ID's multi-tenant endpoints, naming the tenant form to use", () => {
    const problems = problemsOf(SIGN_IN.replace('0b3e6c2a-9c1e-4a55-9f0e-2a3d1f7c9b10', 'common'));
    expect(problemAt(problems, 'auth.signIn.provider.issuer')).toMatch(/<tenant id>\/v2\.0/);
  });

  it('refuses issuer and jwksUri beside signIn: the tokens are Switchboard\'s own', () => {
    const problems = problemsOf(SIGN_IN.replace('  requiredScopes: [mcp]', '  requiredScopes: [mcp]\n  issuer: https://idp.example\n  jwksUri: https://idp.example/jwks'));
    expect(problemAt(problems, 'auth.issuer')).toMatch(/not with signIn/);
    expect(problemAt(problems, 'auth.jwksUri')).toMatch(/not with signIn/);
  });

  it('wants a secret of at least 32 characters', () => {
    expect(problemAt(problemsOf(SIGN_IN.replace('0123456789abcdef0123456789abcdef', 'short')), 'auth.signIn.secret')).toMatch(/at least 32/);
  });

  it('wants the public URL on https, except on loopback', () => {
    expect(problemAt(problemsOf(SIGN_IN.replace('https://mcp.example.com/mcp', 'http://mcp.example.com/mcp')), 'server.publicUrl')).toMatch(/https/);
    expect(() => parseConfigText(SIGN_IN.replace('https://mcp.example.com/mcp', 'http://127.0.0.1:8080/mcp'), 'yaml', {})).not.toThrow();
  });

  it('takes private-use schemes without "://" only', () => {
    const problems = problemsOf(SIGN_IN.replace('    secret:', '    registration: {allowedSchemes: ["cursor://"]}\n    secret:'));
    expect(problemAt(problems, 'auth.signIn.registration.allowedSchemes[0]')).toMatch(/scheme/);
  });
});
