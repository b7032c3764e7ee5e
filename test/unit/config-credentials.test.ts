// mcpServers.<name>.credentials: the block's own shape, and what it needs from the rest of the
// config (auth, isolation: session, the server's kind, a shared key with Redis), each problem at
// the key to change.
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { problemAt, problemsOf } from './config-test-helpers.js';

const AUTH = `
auth:
  issuer: https://idp.example.com
  jwksUri: https://idp.example.com/jwks.json
`;

const EXCHANGE = `
      tokenExchange:
        tokenEndpoint: https://idp.example.com/oauth2/token
        clientId: switchboard
        clientSecret: s3cret
        audience: https://github.example.com`;

describe('credentials in the config', () => {
  it('accepts token exchange for an HTTP server and perUser for a stdio one, with their defaults', () => {
    const config = parseConfigText(
      `${AUTH}
mcpServers:
  github:
    url: https://github.example.com/mcp
    isolation: session
    credentials:${EXCHANGE}
  notes:
    command: notes
    isolation: session
    credentials:
      perUser: { directory: /var/run/secrets/notes, env: NOTES_TOKEN }
      whenMissing: hide
`,
      'yaml',
      {},
    );
    expect(config.mcpServers.github!.credentials).toEqual({
      tokenExchange: {
        tokenEndpoint: 'https://idp.example.com/oauth2/token',
        clientId: 'switchboard',
        clientSecret: 's3cret',
        clientAuthentication: 'client_secret_basic',
        privateKeyAlgorithm: 'RS256',
        audience: 'https://github.example.com',
        scopes: [],
        requestedTokenType: 'urn:ietf:params:oauth:token-type:access_token',
        timeoutMs: 10_000,
      },
      whenMissing: 'error',
    });
    expect(config.mcpServers.notes!.credentials).toEqual({ perUser: { directory: '/var/run/secrets/notes', claim: 'sub', env: 'NOTES_TOKEN' }, whenMissing: 'hide' });
  });

  it('asks for isolation: session, saying why', () => {
    const problems = problemsOf(`${AUTH}
mcpServers:
  notes:
    command: notes
    credentials:
      perUser: { directory: /secrets, env: NOTES_TOKEN }
`);
    expect(problemAt(problems, 'mcpServers.notes.isolation')).toMatch(/must be "session" for per-user credentials: each caller gets a process of their own/);
  });

  it('needs auth, since callers are known by their tokens', () => {
    const problems = problemsOf(`
mcpServers:
  github:
    url: https://github.example.com/mcp
    isolation: session
    credentials:${EXCHANGE}
`);
    expect(problemAt(problems, 'mcpServers.github.credentials')).toMatch(/needs auth/);
  });

  it('takes exactly one way of obtaining a credential', () => {
    const none = problemsOf(`${AUTH}
mcpServers:
  github: { url: "https://github.example.com/mcp", isolation: session, credentials: { whenMissing: hide } }
`);
    expect(problemAt(none, 'mcpServers.github.credentials')).toMatch(/exactly one of tokenExchange, perUser and connection/);
  });

  it('takes connections for HTTP servers in sign-in mode or with browserSignIn, sealed with credentialKey on Redis', () => {
    const signIn = `
server: {publicUrl: https://mcp.example.com/mcp}
auth:
  signIn:
    provider: {issuer: https://login.example.com, clientId: switchboard, clientSecret: s3cret}
    secret: 0123456789abcdef0123456789abcdef
`;
    const servers = `
mcpServers:
  linear: { url: "https://mcp.linear.example/mcp", isolation: session, credentials: { connection: { scopes: [read] } } }
  local: { command: node, isolation: session, credentials: { connection: {} } }
`;
    const problems = problemsOf(`${signIn}${servers}`);
    expect(problemAt(problems, 'mcpServers.local.credentials.connection')).toMatch(/for HTTP servers/);
    expect(problems.map((problem) => problem.path)).not.toContain('mcpServers.linear.credentials.connection');
    expect(problemAt(problemsOf(`${AUTH}${servers}`), 'mcpServers.linear.credentials.connection')).toMatch(/needs auth\.browserSignIn \(or auth\.signIn\)/);
    const browserSignIn = `${AUTH}  browserSignIn: {clientId: switchboard-pages, clientSecret: s3cret, scopes: ["api://switchboard/mcp"], secret: 0123456789abcdef0123456789abcdef}\n`;
    expect(problemsOf(`${browserSignIn}${servers}`).map((problem) => problem.path)).not.toContain('mcpServers.linear.credentials.connection');
    expect(problemAt(problemsOf(`${signIn}${servers}sessions: {store: redis, redisUrl: "redis://r:6379"}\n`), 'sessions.credentialKey')).toMatch(/tokenExchange or connection/);
  });

  it('refuses browserSignIn beside signIn, and without a scope for the gateway', () => {
    const both = problemsOf(`
server: {publicUrl: https://mcp.example.com/mcp}
auth:
  signIn:
    provider: {issuer: https://login.example.com, clientId: switchboard, clientSecret: s3cret}
    secret: 0123456789abcdef0123456789abcdef
  browserSignIn: {clientId: pages, clientSecret: s3cret, scopes: [mcp], secret: 0123456789abcdef0123456789abcdef}
`);
    expect(problemAt(both, 'auth.browserSignIn')).toMatch(/not with signIn/);
    const noScope = problemsOf(`${AUTH}  browserSignIn: {clientId: pages, clientSecret: s3cret, scopes: [], secret: 0123456789abcdef0123456789abcdef}\n`);
    expect(problemAt(noScope, 'auth.browserSignIn.scopes')).toMatch(/token for the gateway/);
  });

  it('keeps token exchange to HTTP servers and env to stdio ones', () => {
    const problems = problemsOf(`${AUTH}
mcpServers:
  local:
    command: local
    isolation: session
    credentials:${EXCHANGE}
  remote:
    url: https://remote.example.com/mcp
    isolation: session
    credentials:
      perUser: { directory: /secrets, env: REMOTE_TOKEN }
  bare:
    command: bare
    isolation: session
    credentials:
      perUser: { directory: /secrets }
`);
    expect(problemAt(problems, 'mcpServers.local.credentials.tokenExchange')).toMatch(/for HTTP servers/);
    expect(problemAt(problems, 'mcpServers.remote.credentials.perUser.env')).toMatch(/for stdio servers/);
    expect(problemAt(problems, 'mcpServers.bare.credentials.perUser.env')).toMatch(/required for a stdio server/);
  });

  it('names what each client authentication needs', () => {
    const problems = problemsOf(`${AUTH}
mcpServers:
  a:
    url: https://a.example.com/mcp
    isolation: session
    credentials:
      tokenExchange: { tokenEndpoint: "https://idp.example.com/token", clientId: gw, audience: a }
  b:
    url: https://b.example.com/mcp
    isolation: session
    credentials:
      tokenExchange: { tokenEndpoint: "https://idp.example.com/token", clientId: gw, clientAuthentication: private_key_jwt, resource: "https://b.example.com" }
  c:
    url: https://c.example.com/mcp
    isolation: session
    credentials:
      tokenExchange: { tokenEndpoint: "https://idp.example.com/token", clientId: gw, clientSecret: x }
`);
    expect(problemAt(problems, 'mcpServers.a.credentials.tokenExchange.clientSecret')).toMatch(/EXCHANGE_CLIENT_SECRET_FILE/);
    expect(problemAt(problems, 'mcpServers.b.credentials.tokenExchange.privateKey')).toMatch(/private_key_jwt/);
    expect(problemAt(problems, 'mcpServers.c.credentials.tokenExchange.audience')).toMatch(/audience, resource, or both/);
  });

  it('asks for a shared key to seal exchanged tokens in Redis', () => {
    const problems = problemsOf(`${AUTH}
sessions: { redisUrl: "redis://127.0.0.1:6379" }
mcpServers:
  github:
    url: https://github.example.com/mcp
    isolation: session
    credentials:${EXCHANGE}
`);
    expect(problemAt(problems, 'sessions.credentialKey')).toMatch(/the same on every replica/);
    const short = problemsOf(`sessions: { credentialKey: "too short" }`);
    expect(problemAt(short, 'sessions.credentialKey')).toMatch(/at least 32 characters/);
  });

  it('refuses a perUser format without the place of the secret', () => {
    const problems = problemsOf(`${AUTH}
mcpServers:
  remote:
    url: https://remote.example.com/mcp
    isolation: session
    credentials:
      perUser: { directory: /secrets, header: X-Api-Key, format: "Token" }
`);
    expect(problemAt(problems, 'mcpServers.remote.credentials.perUser.format')).toMatch(/\{secret\}/);
  });
});
