// The team's identity provider in tests: a real oidc-provider (OpenID Certified) on 127.0.0.1, with
// a login page of its own (team-idp-login.ts), in one of two profiles:
//
// - 'entra', configured like Microsoft Entra ID: issuer with a path (`/<tenant id>/v2.0`, discovery
//   only at `<issuer>/.well-known/openid-configuration`), no dynamic registration, clients
//   registered beforehand (confidential), ID tokens that carry `oid`, `tid`, `email`, `name`,
//   `preferred_username` and `groups`. The `resource` parameter on an authorization request is
//   refused as Entra refuses it (AADSTS9010010): with an error redirect (`error=invalid_target`) to
//   the client's redirect URI when client and redirect URI are registered, otherwise a 400 with the
//   error as JSON. (Only the query of a GET authorization request is checked, which is how every
//   client here sends it.)
// - 'open': dynamic registration on, resource indicators on, access tokens as JWTs (`typ: at+jwt`)
//   whose `aud` is the resource asked for, with `scope`, `email`, `name` and `groups`: what the
//   gateway in resource-server mode (`auth: {issuer, jwksUri}`) accepts.
//
// Whatever it receives at its authorization, token and registration endpoints is recorded, so a
// test can check what a client sent (no `resource`, PKCE, nonce).
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { type ClientMetadata, type KoaContextWithOIDC } from 'oidc-provider';
import { handleInteraction } from './team-idp-login.js';
import { teamIdpStore } from './team-idp-store.js';

/** What a middleware of `provider.use()` is given: Koa's context, with `oidc` once a route has run. */
type KoaContext = Parameters<Parameters<Provider['use']>[0]>[0] & { oidc?: KoaContextWithOIDC['oidc'] };

export interface TeamIdpAccount {
  readonly sub: string;
  /** Entra's object ID: the same for the person in every app (its `sub` differs per app). */
  readonly oid: string;
  readonly email: string;
  readonly name: string;
  readonly groups: readonly string[];
  readonly password: string;
}

/** A confidential client registered at the provider beforehand (what Switchboard is at Entra). */
export interface TeamIdpClient {
  readonly client_id: string;
  readonly client_secret: string;
  readonly redirect_uris: readonly string[];
}

export type TeamIdpProfile = 'entra' | 'open';

export interface TeamIdpOptions {
  readonly profile: TeamIdpProfile;
  readonly accounts: readonly TeamIdpAccount[];
  readonly clients?: readonly TeamIdpClient[];
  /** 'entra': the tenant ID in the issuer's path; default a random UUID. */
  readonly tenantId?: string;
  /** 'open': the scopes a resource (any URL asked for) offers; default `['mcp']`. */
  readonly resourceScopes?: readonly string[];
  /** 'open': how long a resource's access tokens live, in seconds; default oidc-provider's. */
  readonly accessTokenSeconds?: number;
}

/** One request as received: its parameters (query or form), each the last value given. */
export type ReceivedParams = Readonly<Record<string, string>>;

export interface TeamIdpReceived {
  readonly authorizationRequests: readonly ReceivedParams[];
  /** Token requests' form parameters, plus `authorization_scheme` when an Authorization header came. */
  readonly tokenRequests: readonly ReceivedParams[];
  /** Dynamic registration request bodies ('open' only). */
  readonly registrations: readonly Readonly<Record<string, unknown>>[];
  /** Dynamically registered clients as the provider answered them: their ID and secret ('open' only). */
  readonly registeredClients: readonly { readonly client_id: string; readonly client_secret?: string }[];
  /** Revocation requests' form parameters (RFC 7009): the token and its hint. */
  readonly revocations: readonly ReceivedParams[];
}

export interface TeamIdp {
  readonly profile: TeamIdpProfile;
  /** E.g. `http://127.0.0.1:PORT/<tenant id>/v2.0` ('entra') or `http://127.0.0.1:PORT` ('open'). */
  readonly issuer: string;
  readonly discoveryUrl: string;
  readonly jwksUri: string;
  readonly tenantId: string | undefined;
  readonly received: TeamIdpReceived;
  /** Registers one more confidential client (e.g. once the gateway's port, in its callback, is known). */
  addClient(client: TeamIdpClient): void;
  /** Forgets every grant and token, as an administrator revoking everyone's sessions would. */
  revokeAllGrants(): void;
  stop(): Promise<void>;
}

/** Entra's words for a `resource` parameter on a v2.0 authorization request. */
export const ENTRA_RESOURCE_ERROR = 'AADSTS9010010: The resource parameter provided in the request doesn\'t match with the requested scopes.';

const SCOPES = ['openid', 'profile', 'email', 'offline_access', 'groups'];

export async function startTeamIdp(options: TeamIdpOptions): Promise<TeamIdp> {
  const { profile, accounts } = options;
  const tenantId = profile === 'entra' ? (options.tenantId ?? randomUUID()) : undefined;
  const prefix = tenantId === undefined ? '' : `/${tenantId}/v2.0`;
  const received = { authorizationRequests: [] as ReceivedParams[], tokenRequests: [] as ReceivedParams[], registrations: [] as Record<string, unknown>[], revocations: [] as ReceivedParams[], registeredClients: [] as { client_id: string; client_secret?: string }[] };
  const store = teamIdpStore();

  let handle: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) => response.writeHead(503).end();
  const server: Server = createServer((request, response) => handle(request, response));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${origin}${prefix}`;

  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: randomUUID(), use: 'sig', alg: 'RS256' };
  const accountFor = (sub: string) => accounts.find((account) => account.sub === sub);
  const resourceScopes = options.resourceScopes ?? ['mcp'];

  const provider = new Provider(issuer, {
    adapter: store.adapter,
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    clients: (options.clients ?? []).map(clientMetadata),
    // 'open': the resources' scopes too, which clients name in their registration's `scope`.
    scopes: profile === 'open' ? [...SCOPES, ...resourceScopes] : SCOPES,
    claims: {
      openid: ['sub', 'oid', 'groups', ...(tenantId === undefined ? [] : ['tid'])],
      profile: ['name', 'preferred_username'],
      email: ['email'],
      groups: ['groups'],
    },
    // Claims in the ID token itself (as Entra puts them), not only at userinfo.
    conformIdTokenClaims: false,
    findAccount: (_ctx: unknown, sub: string) => {
      const account = accountFor(sub);
      if (account === undefined) return undefined;
      return {
        accountId: account.sub,
        claims: async () => ({
          sub: account.sub,
          oid: account.oid,
          ...(tenantId !== undefined && { tid: tenantId }),
          email: account.email,
          preferred_username: account.email,
          name: account.name,
          groups: [...account.groups],
        }),
      };
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `${prefix}/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: profile === 'open' },
      revocation: { enabled: true },
      resourceIndicators:
        profile === 'open'
          ? {
              enabled: true,
              defaultResource: async (_ctx: unknown, _client: unknown, oneOf?: readonly string[]) => oneOf,
              useGrantedResource: async () => true,
              getResourceServerInfo: async (_ctx: unknown, resourceIndicator: string) => ({
                scope: resourceScopes.join(' '),
                audience: resourceIndicator,
                accessTokenFormat: 'jwt',
                jwt: { sign: { alg: 'RS256' } },
                ...(options.accessTokenSeconds !== undefined && { accessTokenTTL: options.accessTokenSeconds }),
              }),
            }
          : { enabled: false },
    },
    // The person's claims in access tokens, so policy rules on groups work in resource-server mode.
    extraTokenClaims: async (_ctx: unknown, token: { accountId?: string } | object) => {
      const account = 'accountId' in token && token.accountId !== undefined ? accountFor(token.accountId) : undefined;
      return account === undefined ? undefined : { email: account.email, name: account.name, groups: [...account.groups] };
    },
    // Set rather than left to oidc-provider's defaults, which log a notice each time they are used.
    // A resource's own lifetime (accessTokenSeconds) wins over the default; a number here would not let it.
    ttl: { AccessToken: (_ctx: unknown, token: { resourceServer?: { accessTokenTTL?: number } }) => token.resourceServer?.accessTokenTTL ?? 600, AuthorizationCode: 60, IdToken: 600, RefreshToken: 86_400, Interaction: 600, Session: 86_400, Grant: 86_400 },
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(grant: string): boolean }) => client.grantTypeAllowed('refresh_token'),
  });

  provider.use(async (ctx: KoaContext, next) => {
    if (ctx.path === '/auth' && ctx.method === 'GET') {
      received.authorizationRequests.push(lastValues(ctx.query));
      if (profile === 'entra' && ctx.query.resource !== undefined) {
        await refuseResource(provider, ctx);
        return;
      }
    }
    await next();
    const route = ctx.oidc?.route;
    if (route === 'authorization' && ctx.method === 'POST') received.authorizationRequests.push(lastValues(ctx.oidc?.body ?? {}));
    if (route === 'token') {
      const scheme = headerValue(ctx.headers.authorization)?.split(' ')[0];
      received.tokenRequests.push({ ...lastValues(ctx.oidc?.body ?? {}), ...(scheme !== undefined && { authorization_scheme: scheme }) });
    }
    if (route === 'registration' && ctx.method === 'POST') {
      received.registrations.push({ ...(ctx.oidc?.body ?? {}) });
      const answered = ctx.body as { client_id?: unknown; client_secret?: unknown } | undefined;
      if (typeof answered?.client_id === 'string') {
        received.registeredClients.push({ client_id: answered.client_id, ...(typeof answered.client_secret === 'string' && { client_secret: answered.client_secret }) });
      }
    }
    if (route === 'revocation') received.revocations.push(lastValues(ctx.oidc?.body ?? {}));
  });

  const callback = provider.callback();
  handle = (request, response) => {
    void (async () => {
      if (await handleInteraction(provider, accounts, prefix, request, response)) return;
      const url = request.url ?? '/';
      if (prefix !== '') {
        if (url !== prefix && !url.startsWith(`${prefix}/`) && !url.startsWith(`${prefix}?`)) {
          response.writeHead(404).end();
          return;
        }
        // Mounted at the issuer's path: oidc-provider reads the mount from originalUrl.
        Object.assign(request, { originalUrl: url });
        request.url = url.slice(prefix.length) || '/';
      }
      callback(request, response);
    })().catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(error instanceof Error ? error.message : String(error));
    });
  };

  return {
    profile,
    issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    jwksUri: `${issuer}/jwks`,
    tenantId,
    received,
    addClient: (client) => store.put('Client', client.client_id, clientMetadata(client)),
    revokeAllGrants: () => store.revokeAllGrants(),
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function clientMetadata(client: TeamIdpClient): ClientMetadata {
  return {
    client_id: client.client_id,
    client_secret: client.client_secret,
    redirect_uris: [...client.redirect_uris],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  };
}

async function refuseResource(provider: Provider, ctx: KoaContext): Promise<void> {
  const clientId = headerValue(ctx.query.client_id);
  const redirectUri = headerValue(ctx.query.redirect_uri);
  const client = clientId === undefined ? undefined : await provider.Client.find(clientId).catch(() => undefined);
  if (client !== undefined && redirectUri !== undefined && client.redirectUriAllowed(redirectUri)) {
    const target = new URL(redirectUri);
    target.searchParams.set('error', 'invalid_target');
    target.searchParams.set('error_description', ENTRA_RESOURCE_ERROR);
    const state = headerValue(ctx.query.state);
    if (state !== undefined) target.searchParams.set('state', state);
    ctx.redirect(target.href);
    return;
  }
  ctx.status = 400;
  ctx.body = { error: 'invalid_target', error_description: ENTRA_RESOURCE_ERROR };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.at(-1) : value;
}

function lastValues(params: Readonly<Record<string, unknown>>): ReceivedParams {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(params)) {
    const last = Array.isArray(value) ? (value.at(-1) as unknown) : value;
    if (typeof last === 'string') out[key] = last;
  }
  return out;
}
