// Sign-in mode on two replicas sharing Redis: one public URL (replica A's), replica B on a port of
// its own standing for the other pod behind the load balancer. The client's OAuth steps are driven
// by hand so that each goes where the test says: discovery, registration and the person's sign-in
// and consent (Chromium, the team's provider configured like Entra ID) on A; the code exchange and
// the refresh on B; the token A's keys signed accepted for MCP on B; a refresh token reused on A
// after B rotated it revokes the family on both; and an authorization request answered by B whose
// code A exchanges. The replicas, started together, share one signing key.
import { createHash, randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, skipWithoutChromium } from '../support/browser.js';
import { freePort } from '../support/free-port.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { startLoopbackCallback, type LoopbackCallback } from '../support/loopback-callback.js';
import { deleteKeysWithPrefix, redisUrl, uniqueKeyPrefix } from '../support/redis.js';
import { jwtClaims, personSignsIn } from '../support/sign-in-person.js';
import { ADA } from '../support/sign-in-team.js';
import { startTeamIdp, type TeamIdp } from '../support/team-idp.js';
import { everythingStdio } from '../support/upstreams.js';

const IDP_CLIENT = { id: 'switchboard', secret: 'switchboard-secret-at-the-provider-0123456789' };

interface TokenAnswer {
  readonly access_token?: string;
  readonly refresh_token?: string;
  readonly token_type?: string;
  readonly error?: string;
}

describe.skipIf(skipWithoutChromium())('sign-in mode on two replicas sharing Redis', () => {
  let idp: TeamIdp;
  let browser: Browser;
  let callback: LoopbackCallback;
  let a: TestGateway;
  let b: TestGateway;
  let publicUrl: string;
  const keyPrefix = uniqueKeyPrefix('sign-in-replicas');

  beforeAll(async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    publicUrl = `http://127.0.0.1:${portA}/mcp`;
    idp = await startTeamIdp({
      profile: 'entra',
      accounts: [ADA],
      clients: [{ client_id: IDP_CLIENT.id, client_secret: IDP_CLIENT.secret, redirect_uris: [`http://127.0.0.1:${portA}/oauth/callback`] }],
    });
    const config = (port: number) => ({
      server: { port, publicUrl },
      sessions: { store: 'redis' as const, redisUrl: redisUrl(), keyPrefix },
      auth: {
        requiredScopes: ['mcp'],
        signIn: {
          provider: { issuer: idp.issuer, clientId: IDP_CLIENT.id, clientSecret: IDP_CLIENT.secret },
          claims: { sub: 'oid' },
          secret: 'the-same-secret-on-every-replica-0123456789',
        },
      },
      mcpServers: { everything: everythingStdio() },
    });
    // Started together: both find no signing key, and one of them makes it.
    [a, b] = await Promise.all([startGateway(config(portA)), startGateway(config(portB))]);
    callback = await startLoopbackCallback();
    browser = await launchBrowser();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await callback?.stop();
    await Promise.all([a?.close(), b?.close()]);
    await idp?.stop();
    await deleteKeysWithPrefix(redisUrl(), keyPrefix);
  });

  const origin = (gateway: TestGateway) => new URL(gateway.url).origin;

  async function getJson(url: string): Promise<Record<string, unknown>> {
    const response = await fetch(url);
    expect(response.status, url).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  }

  async function token(gateway: TestGateway, params: Record<string, string>): Promise<{ status: number; body: TokenAnswer }> {
    const response = await fetch(`${origin(gateway)}/oauth/token`, { method: 'POST', body: new URLSearchParams(params) });
    return { status: response.status, body: (await response.json()) as TokenAnswer };
  }

  async function echoOn(gateway: TestGateway, accessToken: string, message: string): Promise<string> {
    const client = new Client({ name: 'sign-in-replicas', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: { Authorization: `Bearer ${accessToken}` } } }));
    try {
      return JSON.stringify((await client.callTool({ name: 'everything__echo', arguments: { message } })).content);
    } finally {
      await client.close();
    }
  }

  it('both replicas publish the same signing key, and name the public URL as issuer', async () => {
    const [jwksA, jwksB] = await Promise.all([getJson(`${origin(a)}/oauth/jwks`), getJson(`${origin(b)}/oauth/jwks`)]);
    const kids = (jwks: Record<string, unknown>) => (jwks.keys as { kid: string }[]).map((key) => key.kid);
    expect(kids(jwksA).length).toBe(1);
    expect(kids(jwksB)).toEqual(kids(jwksA));
    const metadataB = await getJson(`${origin(b)}/.well-known/oauth-authorization-server`);
    expect(metadataB).toMatchObject({ issuer: new URL(publicUrl).origin, token_endpoint: `${new URL(publicUrl).origin}/oauth/token` });
  });

  /**
   * A client's steps up to the code: discovery and registration on A, as the client finds them
   * from the public URL; the authorization request sent to `authorizeAt`; the person's sign-in and
   * consent in the browser, on the issuer's origin (A's).
   */
  async function authorizationCode(authorizeAt: TestGateway): Promise<{ clientId: string; code: string; verifier: string }> {
    // Discovery and registration on A, as the client finds it from the public URL.
    const resource = await getJson(`${origin(a)}/.well-known/oauth-protected-resource/mcp`);
    expect(resource).toMatchObject({ resource: publicUrl, authorization_servers: [origin(a)] });
    const server = await getJson(`${origin(a)}/.well-known/oauth-authorization-server`);
    const registered = await fetch(String(server.registration_endpoint), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Replica test client',
        redirect_uris: [callback.redirectUrl],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(registered.status).toBe(201);
    const clientId = String(((await registered.json()) as { client_id: string }).client_id);

    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(16).toString('base64url');
    const authorize = new URL(String(server.authorization_endpoint));
    expect(authorize.origin).toBe(origin(a));
    // Another replica behind the same name: only the port differs (cookies are per host, not port).
    authorize.port = new URL(authorizeAt.url).port;
    for (const [key, value] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: callback.redirectUrl,
      scope: 'mcp',
      resource: publicUrl,
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    })) authorize.searchParams.set(key, value);
    const returned = callback.next();
    await personSignsIn(browser, authorize.href, { credentials: { username: ADA.email, password: ADA.password }, returnTo: callback.redirectUrl, consent: 'allow' });
    const params = await returned;
    expect(params.get('state')).toBe(state);
    expect(params.get('iss')).toBe(origin(a));
    return { clientId, code: params.get('code') ?? '', verifier };

  }

  it('authorizes on one replica; the code is exchanged, the token used and refreshed on the other', async () => {
    const { clientId, code, verifier } = await authorizationCode(a);

    // The code exchanged on B.
    const exchanged = await token(b, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: callback.redirectUrl, client_id: clientId, resource: publicUrl });
    expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
    const first = exchanged.body;
    expect(jwtClaims(first.access_token)).toMatchObject({ iss: origin(a), aud: publicUrl, sub: ADA.oid, client_id: clientId, scope: expect.stringContaining('mcp') });
    expect(first.refresh_token).toEqual(expect.any(String));

    // The token works for MCP on both replicas.
    expect(await echoOn(b, first.access_token ?? '', 'on replica B')).toContain('on replica B');
    expect(await echoOn(a, first.access_token ?? '', 'on replica A')).toContain('on replica A');

    // Refreshed on B: a new access token and a rotated refresh token, which A then honours.
    const refreshed = await token(b, { grant_type: 'refresh_token', refresh_token: first.refresh_token ?? '', client_id: clientId });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(refreshed.body.access_token).not.toBe(first.access_token);
    expect(refreshed.body.refresh_token).not.toBe(first.refresh_token);
    expect(await echoOn(a, refreshed.body.access_token ?? '', 'refreshed on B, used on A')).toContain('refreshed on B, used on A');
    expect(b.logs).toContainEqual(expect.objectContaining({ audit: true, step: 'token-refreshed', sub: ADA.oid, clientId }));

    // The first refresh token, used again on A after B rotated it: refused, and its family revoked everywhere.
    const reused = await token(a, { grant_type: 'refresh_token', refresh_token: first.refresh_token ?? '', client_id: clientId });
    expect(reused.body.error).toBe('invalid_grant');
    expect(a.logs).toContainEqual(expect.objectContaining({ audit: true, step: 'refresh-token-reused', clientId }));
    const afterReuse = await token(b, { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token ?? '', client_id: clientId });
    expect(afterReuse.body.error).toBe('invalid_grant');
  }, 90_000);

  it('takes the authorization request on one replica and the code on the other', async () => {
    const { clientId, code, verifier } = await authorizationCode(b);
    const exchanged = await token(a, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: callback.redirectUrl, client_id: clientId, resource: publicUrl });
    expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
    expect(await echoOn(b, exchanged.body.access_token ?? '', 'authorized on B')).toContain('authorized on B');
  }, 90_000);
});
