// A gateway in sign-in mode (auth.signIn) for tests, with the team's identity provider (team-idp.ts,
// its Entra-like profile) as where people sign in, and the raw OAuth steps of an MCP client against
// it: register, authorize in a real browser (sign in at the provider, consent), exchange the code,
// refresh. Raw HTTP rather than an SDK client, so a test can send what no SDK would.
import { createHash, randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import type { ConfigInput } from '../../src/config/schema.js';
import { approveConsent, signInAtTeamIdp } from './browser.js';
import { freePort } from './free-port.js';
import { startGateway, type TestGateway } from './gateway.js';
import type { LoopbackCallback } from './loopback-callback.js';
import { startTeamIdp, type TeamIdp, type TeamIdpAccount } from './team-idp.js';
import { everythingStdio } from './upstreams.js';

export const ADA: TeamIdpAccount = {
  sub: 'ada-sub',
  oid: '00000000-0000-0000-0000-00000000ada0',
  email: 'ada@example.com',
  name: 'Ada Lovelace',
  groups: ['engineering'],
  password: 'correct horse battery staple',
};
export const ADA_CREDENTIALS = { username: ADA.email, password: ADA.password };

const BROKER_CLIENT_ID = 'switchboard-at-the-team-idp';
const BROKER_CLIENT_SECRET = 'a-client-secret-that-is-long-enough-0123456789';

type SignInInput = NonNullable<NonNullable<ConfigInput['auth']>['signIn']>;

export interface SignInGateway {
  readonly gateway: TestGateway;
  readonly idp: TeamIdp;
  /** The issuer: the gateway's public origin. */
  readonly origin: string;
  /** The MCP endpoint: the default resource. */
  readonly resource: string;
  readonly endpoints: { readonly authorization: string; readonly token: string; readonly registration: string; readonly revocation: string };
  stop(): Promise<void>;
}

/** `signIn` is merged over the provider, secret and the defaults a test needs. */
export async function startSignInGateway(signIn: Partial<SignInInput> = {}, config: Partial<ConfigInput> = {}): Promise<SignInGateway> {
  const idp = await startTeamIdp({ profile: 'entra', accounts: [ADA] });
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  idp.addClient({ client_id: BROKER_CLIENT_ID, client_secret: BROKER_CLIENT_SECRET, redirect_uris: [`${origin}/oauth/callback`] });
  let gateway: TestGateway;
  try {
    gateway = await startGateway({
      server: { port },
      mcpServers: { everything: everythingStdio() },
      ...config,
      auth: {
        requiredScopes: ['mcp'],
        signIn: {
          provider: { issuer: idp.issuer, clientId: BROKER_CLIENT_ID, clientSecret: BROKER_CLIENT_SECRET },
          secret: 'a-sign-in-secret-of-forty-characters-012',
          ...signIn,
        },
      },
    });
  } catch (error) {
    await idp.stop();
    throw error;
  }
  const metadata = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, string>;
  return {
    gateway,
    idp,
    origin,
    resource: `${origin}/mcp`,
    endpoints: {
      authorization: metadata.authorization_endpoint!,
      token: metadata.token_endpoint!,
      registration: metadata.registration_endpoint!,
      revocation: metadata.revocation_endpoint!,
    },
    stop: async () => {
      await gateway.close();
      await idp.stop();
    },
  };
}

export interface Pkce {
  readonly verifier: string;
  readonly challenge: string;
}

export function pkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Dynamic registration (RFC 7591) of a public client; its answer's status and JSON. */
export async function register(endpoint: string, metadata: Record<string, unknown>): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const response = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

/** Registers a public client with one redirect URI and returns its client_id (throws when refused). */
export async function registerClient(endpoint: string, redirectUri: string, name = 'Hostile test client'): Promise<string> {
  const { status, body } = await register(endpoint, { redirect_uris: [redirectUri], client_name: name, token_endpoint_auth_method: 'none' });
  if (status !== 201 || typeof body.client_id !== 'string') throw new Error(`registration refused: ${status} ${JSON.stringify(body)}`);
  return body.client_id;
}

/** An authorization request URL; `params` override (or, with `undefined`, remove) the usual ones. */
export function authorizationUrl(endpoint: string, params: Record<string, string | undefined>): URL {
  const url = new URL(endpoint);
  const all: Record<string, string | undefined> = { response_type: 'code', scope: 'mcp', state: randomBytes(8).toString('hex'), ...params };
  for (const [key, value] of Object.entries(all)) if (value !== undefined) url.searchParams.set(key, value);
  return url;
}

/**
 * The person's part: open the authorization URL, sign in at the team's provider, allow on the
 * consent page; resolves with what came back to the client's loopback callback.
 */
export async function authorizeInBrowser(page: Page, url: URL, callback: LoopbackCallback): Promise<URLSearchParams> {
  const returned = callback.next();
  returned.catch(() => {});
  await page.goto(url.href);
  await signInAtTeamIdp(page, ADA_CREDENTIALS);
  await approveConsent(page);
  return returned;
}

/** Opens the authorization URL and signs in; resolves on the consent page (not yet decided). */
export async function openConsentPage(page: Page, url: URL): Promise<void> {
  await page.goto(url.href);
  await signInAtTeamIdp(page, ADA_CREDENTIALS);
  await page.getByRole('button', { name: 'Allow', exact: true }).waitFor({ timeout: 15_000 });
}

export interface TokenAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

export async function tokenRequest(endpoint: string, params: Record<string, string | undefined>): Promise<TokenAnswer> {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) form.set(key, value);
  const response = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The status of an MCP initialize with this bearer token at the endpoint (200: accepted). */
export async function mcpStatusWith(resource: string, accessToken: string): Promise<number> {
  const response = await fetch(resource, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } } }),
  });
  await response.body?.cancel();
  return response.status;
}

/** The sign-in audit lines so far (`"event": "sign-in"`), by step. */
export function signInAuditLines(gateway: TestGateway, step: string): Record<string, unknown>[] {
  return gateway.logs.filter((line) => line.audit === true && line.event === 'sign-in' && line.step === step);
}
