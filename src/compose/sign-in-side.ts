// Sign-in mode (auth.signIn), when configured: the authorization server with its state in the
// sessions' store (memory, or the same Redis under `{keyPrefix}signin:`), its registration limiter,
// and the MCP endpoints it issues tokens for. Built before the HTTP side, whose token check uses
// its keys.
import { clientAddressOf } from '../http/client-address.js';
import { TrustedProxies } from '../http/trusted-proxies.js';
import type { Config } from '../config/schema.js';
import { createKeyValueStore } from '../session/create-key-value.js';
import { tokenScopes } from '../config/token-scopes.js';
import { createRegistrationLimiter } from '../limits/create-limiter.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import { auditSignIn } from '../observe/audit.js';
import type { Logger } from '../observe/logger.js';
import { errorPage } from '../http/sign-in/pages.js';
import type { BuiltInClient, ResourceEndpoint } from '../signin/authorization-server.js';
import type { SignIn } from '../signin/sign-in.js';
import type { StatusPageClient } from '../signin/status-page-client.js';
import { STATUS_CLIENT_ID, statusPageClient } from '../http/admin/status-client.js';
import { PERSON_PAGES } from '../http/connections/routes.js';

/** How long the status page's code exchange (with the gateway's own listener) may take. */
const STATUS_PAGE_EXCHANGE_MS = 10_000;

export interface SignInSide {
  readonly signIn: SignIn;
  /** The status page's client of the authorization server (http/admin/browser-sign-in.ts); absent with admin.enabled false. */
  readonly statusPage: StatusPageClient | undefined;
  /** The connections pages' sign-in (a built-in client too), when a server has credentials.connection. */
  readonly personPages: StatusPageClient | undefined;
  readonly registrations: RateLimiter;
  close(): Promise<void>;
}

export async function startSignIn(config: Config, logger: Logger): Promise<SignInSide | undefined> {
  const signInConfig = config.auth?.signIn;
  if (config.auth === undefined || signInConfig === undefined) return undefined;
  const store = createKeyValueStore(config.sessions, 'signin');
  const registrations = createRegistrationLimiter(config, signInConfig.registration.perMinutePerAddress, logger);
  let signIn: SignIn;
  let statusPage: StatusPageClient | undefined;
  let personPages: StatusPageClient | undefined;
  try {
    // Loaded only in sign-in mode: a gateway without it never loads the authorization server.
    const { SignIn } = await import('../signin/sign-in.js');
    const trustedProxies = new TrustedProxies(config.server.trustedProxies);
    signIn = await SignIn.start({
      issuer: new URL(config.server.publicUrl).origin,
      config: signInConfig,
      resources: resourcesOf(config),
      store,
      errorPage,
      // The status page signs people in as a client of this authorization server (http/admin/).
      builtInClients: [...(config.admin.enabled ? [statusPageClient(config)] : []), ...(usesConnections(config) ? [personPagesClient(config)] : [])],
      audit: auditSignIn(logger),
      // The same proxies the access control believes (http/access-control.ts), from the same setting.
      clientAddress: (request) => clientAddressOf(request, trustedProxies),
      onError: (error, message) => logger.error({ err: error }, message),
    });
    if (config.admin.enabled) {
      const { StatusPageClient } = await import('../signin/status-page-client.js');
      statusPage = new StatusPageClient({
        issuer: signIn.issuer,
        clientId: STATUS_CLIENT_ID,
        resource: config.server.publicUrl,
        // The OpenID scopes too: a person who may not have the admin scope is still told who they signed in as.
        scope: `openid email profile groups ${config.admin.scope}`,
        timeoutMs: STATUS_PAGE_EXCHANGE_MS,
      });
    }
    if (usesConnections(config)) {
      const { StatusPageClient } = await import('../signin/status-page-client.js');
      personPages = new StatusPageClient({
        issuer: signIn.issuer,
        clientId: PERSON_PAGES_CLIENT_ID,
        resource: config.server.publicUrl,
        scope: 'openid email profile',
        timeoutMs: STATUS_PAGE_EXCHANGE_MS,
      });
    }
  } catch (error) {
    await Promise.allSettled([store.close(), registrations.close()]);
    throw error;
  }
  return {
    signIn,
    statusPage,
    personPages,
    registrations,
    close: async () => {
      await signIn.close();
      await Promise.allSettled([store.close(), registrations.close()]);
    },
  };
}

/**
 * The MCP endpoints as resources (RFC 8707), the default one first: each with the scopes a token
 * for it may carry (every scope the config names: required ones, the policy's, the admin scope,
 * those of scopeGrants and signIn.scopes) and the audience its token check expects.
 */
export function resourcesOf(config: Config): ResourceEndpoint[] {
  const auth = config.auth;
  if (auth === undefined) return [];
  const origin = new URL(config.server.publicUrl).origin;
  return [
    { uri: config.server.publicUrl, audience: auth.audience ?? config.server.publicUrl, scopes: tokenScopes(config) },
    ...Object.entries(config.endpoints).map(([name, endpoint]) => {
      const uri = `${origin}${endpoint.path}`;
      return { uri, audience: endpoint.audience ?? uri, scopes: tokenScopes(config, name) };
    }),
  ];
}

export const PERSON_PAGES_CLIENT_ID = 'switchboard-connections';

/** Whether some server's credentials are connections: the person pages sign people in then. */
export function usesConnections(config: Config): boolean {
  return Object.values(config.mcpServers).some((server) => server.credentials?.connection !== undefined);
}

/** The connections pages as a built-in client: on the public origin, no consent page. */
function personPagesClient(config: Config): BuiltInClient {
  return { clientId: PERSON_PAGES_CLIENT_ID, name: 'Switchboard connections', redirectUris: [`${new URL(config.server.publicUrl).origin}${PERSON_PAGES.callback}`] };
}
