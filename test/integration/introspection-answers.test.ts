// What the gateway makes of each kind of introspection answer (RFC 7662 section 2.2), from a
// provider that is wrong, hostile or merely unusual: an endpoint of our own on 127.0.0.1 answers what
// each test says, and the resource-server verifier (the gateway's token check) judges it.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntrospectionUnavailableError } from '../../src/auth/introspection-client.js';
import { createResourceServerVerifier } from '../../src/auth/resource-server-verifier.js';
import { KeysUnavailableError, TokenRejectedError } from '../../src/auth/token-verifier.js';

const ISSUER = 'https://idp.example.com';
const AUDIENCE = 'https://mcp.example.com/mcp';

let server: Server;
let endpoint: string;
let answer: { status: number; body: string } = { status: 200, body: '{"active":false}' };
let calls = 0;
let lastHeaders: IncomingHttpHeaders = {};
let lastForm = new URLSearchParams();

beforeAll(async () => {
  server = createServer((request, response) => {
    calls += 1;
    lastHeaders = request.headers;
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      lastForm = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/introspect`;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

const now = () => Math.floor(Date.now() / 1000);

function answering(claims: Record<string, unknown>, status = 200): void {
  answer = { status, body: JSON.stringify(claims) };
}

function good(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { active: true, iss: ISSUER, aud: AUDIENCE, sub: 'alice', scope: 'mcp read', exp: now() + 300, token_type: 'Bearer', ...extra };
}

function verifier(cacheSeconds = 0, clientId = 'switchboard') {
  return createResourceServerVerifier({
    issuer: ISSUER,
    audience: AUDIENCE,
    introspection: { endpoint, clientId, clientSecret: 'se:cr%et', cacheSeconds, timeoutMs: 2_000 },
    clockToleranceSeconds: 30,
  });
}

async function refusal(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error, 'the token should have been refused').toBeInstanceOf(Error);
  return error as Error;
}

describe('an active answer', () => {
  it('gives the principal its subject, scopes and claims, asked as RFC 7662 says', async () => {
    answering(good());
    const principal = await verifier(0, 'gate:way').verify('opaque-token-1');
    expect(principal).toMatchObject({ sub: 'alice', scopes: ['mcp', 'read'], claims: { iss: ISSUER, aud: AUDIENCE } });
    expect(principal.token?.reveal()).toBe('opaque-token-1');
    expect(Object.fromEntries(lastForm)).toEqual({ token: 'opaque-token-1', token_type_hint: 'access_token' });
    // RFC 6749 2.3.1: id and secret form-urlencoded, then joined with ':' and base64-encoded.
    expect(lastHeaders.authorization).toBe(`Basic ${Buffer.from('gate%3Away:se%3Acr%25et').toString('base64')}`);
    expect(lastHeaders['content-type']).toBe('application/x-www-form-urlencoded');
  });

  it('is accepted with the audience in an array, in another case, or a little after exp', async () => {
    answering(good({ aud: ['https://other.example', 'HTTPS://MCP.EXAMPLE.COM/mcp/'], exp: now() - 5 }));
    await expect(verifier().verify('t')).resolves.toMatchObject({ sub: 'alice' });
  });

  it('is accepted without iss, exp or token_type, which RFC 7662 leaves optional', async () => {
    answering({ active: true, aud: AUDIENCE, sub: 'alice' });
    await expect(verifier().verify('t')).resolves.toMatchObject({ sub: 'alice', scopes: [] });
  });
});

describe('an answer the gateway refuses (401)', () => {
  const refused: [string, Record<string, unknown>, RegExp][] = [
    ['inactive', { active: false }, /not active/],
    ['from another issuer', good({ iss: 'https://evil.example' }), /another issuer/],
    ['for another audience', good({ aud: 'https://other.example/mcp' }), /not for this resource/],
    ['without an audience', good({ aud: undefined }), /not for this resource/],
    ['expired beyond the clock tolerance', good({ exp: now() - 60 }), /expired/],
    ['not valid yet', good({ nbf: now() + 120 }), /not valid yet/],
    ['without a subject', good({ sub: undefined }), /no subject/],
    ['with an empty subject', good({ sub: '' }), /no subject/],
    ['for a key-bound (DPoP) token', good({ token_type: 'DPoP', cnf: { jkt: 'abc' } }), /bound to a key/],
    ['for a token that is not a bearer token', good({ token_type: 'refresh_token' }), /not a bearer access token/],
    ['with an exp that is not a number', good({ exp: 'tomorrow' }), /expired/],
  ];

  it.each(refused)('%s', async (_name, claims, reason) => {
    answering(claims);
    const error = await refusal(verifier().verify('t'));
    expect(error).toBeInstanceOf(TokenRejectedError);
    expect((error as TokenRejectedError).reason).toMatch(reason);
  });

  it('when the provider cannot introspect that kind of token (unsupported_token_type)', async () => {
    answering({ error: 'unsupported_token_type' }, 400);
    expect(await refusal(verifier().verify('t'))).toBeInstanceOf(TokenRejectedError);
  });
});

describe('an endpoint that does not answer as it should (503)', () => {
  const failures: [string, number, string, RegExp][] = [
    ['refuses our credentials', 401, '{"error":"invalid_client"}', /refuses the gateway's client credentials \(401\)/],
    ['fails', 502, 'Bad Gateway', /answered 502/],
    ['calls our request bad', 400, '{"error":"invalid_request"}', /answered 400/],
    ['answers HTML', 200, '<html>login</html>', /not JSON/],
    ['answers without "active"', 200, '{"sub":"alice"}', /without a boolean "active"/],
    ['answers "active" as a string', 200, '{"active":"true","sub":"alice"}', /without a boolean "active"/],
    ['answers more than 64 KB', 200, JSON.stringify({ active: true, padding: 'x'.repeat(70_000) }), /more than 64 KB/],
  ];

  it.each(failures)('%s', async (_name, status, body, message) => {
    answer = { status, body };
    const error = await refusal(verifier().verify('t'));
    expect(error).toBeInstanceOf(IntrospectionUnavailableError);
    expect(error).toBeInstanceOf(KeysUnavailableError); // what the HTTP layer turns into 503
    expect(error.message).toMatch(message);
    expect(error.message).toContain(endpoint);
    expect(error.message).not.toContain('se:cr%et');
  });
});

describe('the cache', () => {
  it('keeps an answer no longer than the token lives', async () => {
    const v = verifier(60);
    // More than a second ahead (now() rounds down), so the answer is surely cached at first.
    const exp = now() + 2;
    answering(good({ exp }));
    const before = calls;
    await v.verify('short-lived');
    await v.verify('short-lived');
    expect(calls - before).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, exp * 1_000 + 50 - Date.now()));
    // Past exp, but within the clock tolerance: accepted, after asking the provider again.
    await v.verify('short-lived');
    expect(calls - before).toBe(2);
  });

  it('does not keep an inactive answer', async () => {
    const v = verifier(60);
    answering({ active: false });
    const before = calls;
    await refusal(v.verify('dead'));
    await refusal(v.verify('dead'));
    expect(calls - before).toBe(2);
  });

  it('checks the audience of a cached answer for each endpoint', async () => {
    const v = verifier(60);
    answering(good());
    await v.verify('shared');
    const before = calls;
    expect(await refusal(v.withAudience('https://mcp.example.com/team').verify('shared'))).toBeInstanceOf(TokenRejectedError);
    expect(calls).toBe(before);
  });
});
