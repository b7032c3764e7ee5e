// The OAuth 2.1 authorization server MCP clients see, on oidc-provider (OpenID Certified; decision
// 0017): how it is configured is all this file says. Registration (RFC 7591, guarded in
// registration-guard.ts), client ID metadata documents, authorization code with PKCE (S256 only),
// resource indicators (RFC 8707) naming the gateway's MCP endpoints, JWT access tokens carrying the
// person's mapped claims, refresh tokens rotated with reuse detection (a reused one revokes its
// grant, which removes every token of it: provider-adapter.ts), revocation (RFC 7009). The person
// signs in and consents in interactions.ts.
import { hkdfSync } from 'node:crypto';
import Provider, { errors, type ClientMetadata, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { SignInConfig } from '../config/sign-in.js';
import type { TokenSealer } from '../credentials/token-sealing.js';
import type { KeyValueStore } from '../session/key-value.js';
import { metadataDocumentProblem } from './metadata-documents.js';
import { isLoopbackRedirect, metadataRedirectProblem } from './redirect-uris.js';
import { SIGNING_ALGORITHM } from './key-ring.js';
import type { People } from './people.js';
import { storeAdapter } from './provider-adapter.js';
import { INTERACTION_PATH, ROUTES } from './paths.js';


/** One MCP endpoint as a resource (RFC 8707): the URI clients name, and what its tokens hold. */
export interface ResourceEndpoint {
  /** Its canonical URI: server.publicUrl, or the public origin + an endpoint's path. */
  readonly uri: string;
  /** What its tokens' `aud` is: the endpoint's configured audience, else its URI. */
  readonly audience: string;
  /** Every scope a token for it may carry. */
  readonly scopes: readonly string[];
}

export interface AuthorizationServerOptions {
  readonly issuer: string;
  readonly signIn: SignInConfig;
  /** The gateway's MCP endpoints; the first is the default resource when a client names none. */
  readonly resources: readonly ResourceEndpoint[];
  readonly store: KeyValueStore;
  readonly sealer: TokenSealer;
  readonly people: People;
  /** The key ring's private JWKs, newest (the signing one) first. */
  readonly signingKeys: readonly object[];
  /** The `fetch` for client ID metadata documents (metadata-documents.ts). */
  readonly fetch: NonNullable<Configuration['fetch']>;
  /** Whether a metadata document's host may serve documents (auth.signIn.clientMetadataDocuments.allowedHosts). */
  readonly allowMetadataHost: (host: string) => boolean;
  /** Clients of the gateway's own (the status page): registered like auth.signIn.clients, never shown a consent page. */
  readonly builtInClients?: readonly BuiltInClient[];
  /** The page a browser gets when a request cannot go back to its client (the HTTP layer draws it). */
  readonly errorPage: (error: string, description: string) => { readonly html: string; readonly csp: string };
}

/** A client the gateway itself is (the status page's sign-in): public, PKCE, trusted. */
export interface BuiltInClient {
  readonly clientId: string;
  readonly name: string;
  readonly redirectUris: readonly string[];
}

const INTERACTION_SECONDS = 600;
const DAY_SECONDS = 24 * 3600;

export function createAuthorizationServer(options: AuthorizationServerOptions): Provider {
  const { signIn, people } = options;
  const resources = new Map(options.resources.map((resource) => [normalizedUri(resource.uri), resource]));
  const defaultResource = options.resources[0];
  if (defaultResource === undefined) throw new Error('createAuthorizationServer: no MCP endpoint to issue tokens for');
  const familySeconds = signIn.tokens.refreshTokenDays * DAY_SECONDS;

  const configuration: Configuration = {
    adapter: storeAdapter(options.store, options.sealer),
    clients: [
      ...signIn.clients.map(preRegistered),
      // The gateway's own clients want one access token per sign-in, never a refresh token to keep.
      ...(options.builtInClients ?? []).map((client) => ({ ...preRegistered({ ...client, redirectUris: [...client.redirectUris] }), grant_types: ['authorization_code'] })),
    ],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: SIGNING_ALGORITHM,
    },
    jwks: { keys: options.signingKeys as never },
    cookies: {
      keys: [cookieKey(signIn.secret)],
      long: { signed: true, httpOnly: true, sameSite: 'lax' },
      short: { signed: true, httpOnly: true, sameSite: 'lax' },
    },
    findAccount: async (_ctx, sub) => {
      const person = await people.find(sub);
      if (person === undefined) return undefined;
      return {
        accountId: sub,
        claims: async () => ({ sub, ...(person.email && { email: person.email }), ...(person.name && { name: person.name }), groups: [...person.groups] }),
      };
    },
    claims: { openid: ['sub'], email: ['email'], profile: ['name'], groups: ['groups'] },
    // The MCP scopes are the resources' (getResourceServerInfo: a token for one endpoint carries
    // only that endpoint's), and listed here too: clients register with the scopes they will ask
    // for ("mcp offline_access"), and oidc-provider refuses a registration naming a scope it lacks.
    scopes: [...new Set(['openid', 'offline_access', 'email', 'profile', 'groups', ...options.resources.flatMap((resource) => resource.scopes)])],
    responseTypes: ['code'],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: signIn.registration.enabled, initialAccessToken: false },
      revocation: { enabled: true },
      introspection: { enabled: false },
      userinfo: { enabled: true },
      rpInitiatedLogout: { enabled: false },
      clientIdMetadataDocument: {
        enabled: signIn.clientMetadataDocuments.enabled,
        ack: 'draft-02',
        allowFetch: async (_ctx: KoaContextWithOIDC, clientId: string) => options.allowMetadataHost(new URL(clientId).hostname),
        allowClient: async (_ctx: KoaContextWithOIDC, client: { clientId: string; redirectUris?: string[] }) => {
          assertRedirectsOnClientHost(client.clientId, client.redirectUris ?? []);
          return true;
        },
        cacheDuration: { min: 30, max: DAY_SECONDS },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx, _client, oneOf) => oneOf?.[0] ?? defaultResource.uri,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          const resource = resources.get(normalizedUri(indicator));
          if (resource === undefined) throw new errors.InvalidTarget(`${indicator} is not an MCP endpoint of this gateway; ask for one of ${[...resources.values()].map((known) => known.uri).join(', ')}`);
          return {
            scope: resource.scopes.join(' '),
            audience: resource.audience,
            accessTokenTTL: signIn.tokens.accessTokenSeconds,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: SIGNING_ALGORITHM } },
          };
        },
      },
    },
    // Every client that may refresh gets a refresh token, without asking for offline_access: MCP
    // clients keep sessions for days and do not ask for it.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    extraTokenClaims: async (_ctx, token) => {
      if (token.kind !== 'AccessToken' || typeof token.accountId !== 'string') return undefined;
      const person = await people.find(token.accountId);
      if (person === undefined) return undefined;
      return { ...(person.email && { email: person.email }), ...(person.name && { name: person.name }), groups: [...person.groups] };
    },
    ttl: {
      AccessToken: signIn.tokens.accessTokenSeconds,
      AuthorizationCode: signIn.tokens.authorizationCodeSeconds,
      IdToken: signIn.tokens.accessTokenSeconds,
      Interaction: INTERACTION_SECONDS,
      Session: familySeconds,
      Grant: familySeconds,
      // A family lives refreshTokenDays from its first token, however often it is rotated.
      RefreshToken: (_ctx, token) => {
        const started = typeof token.iiat === 'number' ? token.iiat : Math.floor(Date.now() / 1000);
        return Math.max(1, started + familySeconds - Math.floor(Date.now() / 1000));
      },
    },
    routes: ROUTES,
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}` },
    renderError: async (ctx, out, error) => {
      const description = String(out.error_description ?? '');
      const reason = metadataDocumentProblem(error);
      const page = options.errorPage(String(out.error ?? 'error'), reason === undefined ? description : `${description}: ${reason}`);
      ctx.type = 'html';
      ctx.set('Content-Security-Policy', page.csp);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = page.html;
    },
    fetch: options.fetch,
    enabledJWA: { idTokenSigningAlgValues: [SIGNING_ALGORITHM] },
  } as Configuration;

  const provider = new Provider(options.issuer, configuration);
  // Its URLs are built from the request's host and scheme: the gateway sets both to the issuer's
  // before handing a request over (sign-in.ts), so they are right behind any ingress.
  provider.proxy = true;
  return provider;
}

function preRegistered(client: SignInConfig['clients'][number]): ClientMetadata {
  const native = client.redirectUris.every((uri) => isLoopbackRedirect(uri) || !/^https?:/.test(uri));
  return {
    client_id: client.clientId,
    ...(client.name !== undefined && { client_name: client.name }),
    redirect_uris: client.redirectUris,
    application_type: native ? 'native' : 'web',
    token_endpoint_auth_method: 'none',
  };
}

/** A metadata document's redirect URIs: https on its own host, or http on loopback (redirect-uris.ts). */
function assertRedirectsOnClientHost(clientId: string, redirectUris: readonly string[]): void {
  const problems = redirectUris.map((uri) => metadataRedirectProblem(clientId, uri)).filter((problem) => problem !== undefined);
  if (problems.length > 0) {
    throw new errors.InvalidClientMetadata(`the client's redirect URIs must be https on ${new URL(clientId).host} (its metadata document's host) or http on loopback: ${problems.join('; ')}`);
  }
}

/** A resource indicator with and without a trailing slash names the same endpoint. */
export function normalizedUri(uri: string): string {
  return uri.endsWith('/') && new URL(uri).pathname !== '/' ? uri.slice(0, -1) : uri;
}

function cookieKey(secret: string): string {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), 'switchboard', 'sign-in-cookies', 32)).toString('base64url');
}
