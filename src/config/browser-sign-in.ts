// `auth.browserSignIn`: in resource-server mode (auth.issuer, the team's provider issues the
// tokens), how a person's browser is signed in to Switchboard's own pages (the Connections page,
// connect links, the status page): the authorization code flow with PKCE, state and nonce at the
// team's provider, as one confidential client there. The access token it gets is checked with the
// same verifier as MCP clients' bearer tokens, so the browser is the same principal (`sub`) as the
// person's MCP client: the scopes asked for must make the provider issue a token for the gateway's
// audience (Entra `api://<app>/mcp`, an Okta authorization server's scope, `resource` where the
// provider takes RFC 8707).
import { z } from 'zod';
import { lenientNumber } from './lenient.js';

const MIN_SECRET_CHARS = 32;
const SCOPE = z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'a scope is a word of printable ASCII, without spaces, quotes or backslashes');

export const browserSignInSection = z
  .object({
    issuer: z
      .url({ protocol: /^https?$/, error: 'must be an https URL (http only for a provider on loopback)' })
      .optional()
      .describe(
        "Where people sign in, as the provider's discovery document (`/.well-known/openid-configuration`) names it; default `auth.issuer`. Set it when the tokens' `iss` is not the discovery issuer (Entra v1.0 access tokens carry `https://sts.windows.net/<tenant id>/`; people sign in at `https://login.microsoftonline.com/<tenant id>/v2.0`).",
      ),
    clientId: z
      .string()
      .min(1)
      .describe("Switchboard's client ID at the provider: a confidential web client whose redirect URIs are `<server.publicUrl origin>/connections/signin/callback` and, for the status page, `<its origin>/signin/callback`."),
    clientSecret: z.string().min(1).describe('Its client secret; use `${ENV}` or a secret file rather than writing it here.'),
    scopes: z
      .array(SCOPE)
      .min(1, 'name the scope that makes the provider issue a token for the gateway (Entra: `api://<app id>/mcp`)')
      .describe(
        "Scopes asked of the provider (`openid` is added): they must get an access token the gateway accepts, for its audience (`auth.audience`, default `server.publicUrl`) with `auth.requiredScopes`. Entra: `api://<app id>/<scope>`; Okta: a scope of the authorization server whose audience it is; Keycloak: a client scope with an audience mapper.",
      ),
    adminScopes: z
      .array(SCOPE)
      .optional()
      .describe("Scopes the status page's sign-in asks for; default `scopes` and `admin.scope`. Set it when the provider names the admin scope otherwise in requests (Entra: `api://<app id>/admin`)."),
    resource: z
      .url({ error: 'must be a URL' })
      .optional()
      .describe('The RFC 8707 `resource` sent on the authorization and token requests, for providers that choose the audience by it (e.g. `server.publicUrl`). Never with Entra ID, which refuses it (AADSTS9010010).'),
    authorizationParams: z
      .record(z.string(), z.string())
      .default({})
      .describe('Extra parameters on the authorization request, e.g. `{prompt: select_account}`, or Auth0\'s `audience`.'),
    // Checked after ${VAR} interpolation only: a file (or Helm values) naming the variable is fine.
    secret: z
      .string()
      .pipe(z.string().min(MIN_SECRET_CHARS, `must be at least ${MIN_SECRET_CHARS} characters (e.g. \`openssl rand -base64 48\`)`))
      .describe('Seals the pages\' session cookies and signs their forms; the same on every replica. Generate one with `openssl rand -base64 48`.'),
    timeoutMs: lenientNumber(z.number().int().positive().max(60_000))
      .default(10_000)
      .describe('How long a request to the provider (discovery, the code exchange) may take.'),
  })
  .strict()
  .describe(
    "Resource-server mode: people sign in to Switchboard's pages (Connections, connect links, the status page) at the team's provider, as this confidential client; the access token it gets must be one the gateway accepts, so the browser is the same person as their MCP client. Required for `credentials.connection` without `signIn`.",
  );

export type BrowserSignInConfig = z.output<typeof browserSignInSection>;
