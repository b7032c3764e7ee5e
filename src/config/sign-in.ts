// `auth.signIn`: Switchboard as the OAuth 2.1 authorization server its MCP clients see, with the
// team's OpenID Connect provider as the place people sign in (docs/decisions/0017). The provider
// knows Switchboard as one confidential client with one redirect URI (the broker callback); MCP
// clients register with Switchboard (dynamic registration, client ID metadata documents, or the
// clients listed here).
import { z } from 'zod';
import { lenientBoolean, lenientNumber } from './lenient.js';

/** `/oauth/callback` on the public origin: the one redirect URI registered at the team's provider. */
export const BROKER_CALLBACK_PATH = '/oauth/callback';
const MIN_SECRET_CHARS = 32;
const SCOPE = z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'a scope is a word of printable ASCII, without spaces, quotes or backslashes');
const claimName = z.string().min(1).describe('A claim name; `a.b` walks into a nested claim.');

const providerSection = z
  .object({
    issuer: z
      .url({ protocol: /^https?$/, error: 'must be an https URL (http only for a provider on loopback)' })
      .describe(
        "The provider's issuer URL, as its discovery document (`/.well-known/openid-configuration`) names it: Entra ID `https://login.microsoftonline.com/<tenant id>/v2.0`, Okta `https://<org>.okta.com` (or an authorization server's), Google `https://accounts.google.com`, Keycloak `https://<host>/realms/<realm>`.",
      ),
    clientId: z.string().min(1).describe("Switchboard's client ID at the provider (a confidential web client whose one redirect URI is `<server.publicUrl origin>/oauth/callback`)."),
    clientSecret: z.string().min(1).describe('Its client secret; use `${ENV}` or a secret file rather than writing it here.'),
    scopes: z
      .array(SCOPE)
      .default(['openid', 'email', 'profile'])
      .describe('Scopes asked of the provider at sign-in. `openid` is added when missing. Okta needs `groups` here for a `groups` claim; Keycloak a client scope that maps groups.'),
    authorizationParams: z
      .record(z.string(), z.string())
      .default({})
      .describe('Extra parameters on the authorization request to the provider, e.g. `{prompt: select_account}` or Entra\'s `domain_hint`. `resource` is never sent (Entra refuses it).'),
    timeoutMs: lenientNumber(z.number().int().positive().max(60_000))
      .default(10_000)
      .describe("How long a request to the provider (discovery, the code exchange, userinfo) may take."),
  })
  .strict()
  .superRefine(({ issuer }, context) => {
    // Entra ID's multi-tenant aliases publish an issuer with a `{tenantid}` placeholder, which no ID
    // token matches: sign-in would fail for everyone after the person signed in.
    const url = URL.parse(issuer);
    const tenant = url?.hostname === 'login.microsoftonline.com' ? url.pathname.split('/')[1] : undefined;
    if (tenant !== undefined && ['common', 'organizations', 'consumers'].includes(tenant.toLowerCase())) {
      context.addIssue({
        code: 'custom',
        path: ['issuer'],
        message: `Entra ID's "${tenant}" endpoint has no single issuer; use your tenant's: https://login.microsoftonline.com/<tenant id>/v2.0`,
      });
    }
  })
  .describe("The team's OpenID Connect provider, where people sign in.");

const claimsSection = z
  .object({
    sub: claimName.default('sub').describe("The claim that names the person: the token's `sub`, what sessions, limits, audit and per-user credentials key on. Entra ID: `oid` (its `sub` differs per app)."),
    email: claimName.default('email').describe('The claim carried into tokens as `email`.'),
    name: claimName.default('name').describe('The claim carried into tokens as `name`.'),
    groups: claimName
      .default('groups')
      .describe('The claim carried into tokens as `groups` (an array): Entra ID `groups` or `roles`, Okta and Keycloak `groups`. Policy rules match it as `claims: {groups: ...}`.'),
  })
  .strict()
  .describe("How the provider's claims (ID token, then userinfo) become the claims of Switchboard's tokens.");

const scopeGrant = z
  .object({
    groups: z.array(z.string().min(1)).min(1).describe('People in any of these groups (the mapped `groups` claim) may be granted the scope.'),
  })
  .strict()
  .describe('Who may be granted this scope.');

const preRegisteredClient = z
  .object({
    clientId: z.string().min(1).max(255).describe('The client ID the client sends.'),
    name: z.string().min(1).max(200).optional().describe('The name the consent page shows.'),
    redirectUris: z
      .array(z.url({ error: 'must be a URL' }))
      .min(1)
      .describe('Its redirect URIs, matched exactly; a loopback `http://127.0.0.1` or `http://localhost` one with any port (RFC 8252).'),
  })
  .strict();

const registrationSection = z
  .object({
    enabled: lenientBoolean().default(true).describe('Dynamic client registration (RFC 7591) at `/oauth/register`: public clients only, redirect URIs on loopback or HTTPS.'),
    perMinutePerAddress: lenientNumber(z.number().int().positive().max(10_000))
      .default(20)
      .describe('Registrations one client address may make per minute; more get 429.'),
    maxBodyBytes: lenientNumber(z.number().int().min(1_024).max(1_048_576)).default(16_384).describe('The largest registration request body; larger get 413.'),
    allowedSchemes: z
      .array(z.string().regex(/^[a-z][a-z0-9+.-]*$/, 'a URI scheme, lower case, without "://"'))
      .default([])
      .describe('Private-use URI schemes native apps may register redirect URIs with (RFC 8252 section 7.1), e.g. `cursor`; HTTPS and http on loopback are always allowed.'),
  })
  .strict()
  .describe('Dynamic client registration (RFC 7591).');

const clientMetadataDocumentsSection = z
  .object({
    enabled: lenientBoolean()
      .default(true)
      .describe('Client ID metadata documents: a client whose `client_id` is an HTTPS URL is described by the JSON document there (fetched within 2.5 s, at most 5 KiB, cached as its `Cache-Control` says, 30 s to 1 day).'),
    allowedHosts: z
      .array(z.string().min(1))
      .optional()
      .describe('Only documents on these hosts (exact, or `*.example.com`); absent: any public host.'),
    allowLoopbackForTests: lenientBoolean()
      .default(false)
      .describe('For tests only: fetch documents from loopback addresses (otherwise refused, as every special-use address is).'),
  })
  .strict()
  .describe('Client ID metadata documents (the MCP authorization spec, 2025-11-25): a client known by the HTTPS URL of its metadata.');

const tokensSection = z
  .object({
    accessTokenSeconds: lenientNumber(z.number().int().min(5).max(86_400)).default(3_600).describe('The life of an access token (and of an ID token).'),
    refreshTokenDays: lenientNumber(z.number().int().min(1).max(365)).default(30).describe('The life of a refresh token family since sign-in; each refresh rotates the token.'),
    authorizationCodeSeconds: lenientNumber(z.number().int().min(10).max(600)).default(60).describe('The life of an authorization code (single use).'),
  })
  .strict();

export const signInSection = z
  .object({
    provider: providerSection,
    claims: claimsSection.default(() => claimsSection.parse({})),
    // Checked after ${VAR} interpolation only: a file (or Helm values) naming the variable is fine.
    secret: z
      .string()
      .pipe(z.string().min(MIN_SECRET_CHARS, `must be at least ${MIN_SECRET_CHARS} characters (e.g. \`openssl rand -base64 48\`)`))
      .describe('Signs the sign-in cookies and seals sign-in state; the same on every replica. Generate one with `openssl rand -base64 48`.'),
    scopes: z
      .array(SCOPE)
      .default([])
      .describe('Scopes clients may ask for beside `auth.requiredScopes`, the endpoints\' `requiredScopes`, the policy\'s and `admin.scope`.'),
    scopeGrants: z
      .record(SCOPE.describe('A scope.'), scopeGrant)
      .default({})
      .describe('Scopes only some people may be granted, by group (e.g. `switchboard:admin: {groups: [platform-admins]}`); any other scope goes to anyone who signs in.'),
    clients: z.array(preRegisteredClient).default([]).describe('Clients registered here rather than by themselves (public clients, PKCE).'),
    trustedClients: z
      .array(z.string().min(1))
      .default([])
      .describe('Client IDs (of `clients`, or metadata document URLs) that get no consent page: the person is asked only to sign in.'),
    registration: registrationSection.default(() => registrationSection.parse({})).describe('Dynamic client registration (RFC 7591).'),
    clientMetadataDocuments: clientMetadataDocumentsSection
      .default(() => clientMetadataDocumentsSection.parse({}))
      .describe('Client ID metadata documents (the MCP authorization spec, 2025-11-25): a client known by the HTTPS URL of its metadata.'),
    tokens: tokensSection.default(() => tokensSection.parse({})).describe('How long what Switchboard issues lives.'),
    signingKeyRotationDays: lenientNumber(z.number().int().min(1).max(365))
      .default(30)
      .describe("How often Switchboard makes a new token signing key (kept in the session store, shared by every replica); the old one stays in the JWKS until its tokens have expired."),
  })
  .strict()
  .describe("Switchboard as the authorization server its MCP clients see; people sign in at the team's OpenID Connect provider. Replaces `issuer` and `jwksUri`.");

export type SignInConfig = z.output<typeof signInSection>;
