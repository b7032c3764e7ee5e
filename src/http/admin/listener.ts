// Where the status page and the admin API are served (config `admin`): a listener of their own,
// loopback by default, or, with `onServerPort`, the MCP port (its paths keep precedence there). With
// `auth`, both need a token for the gateway's audience that carries admin.scope; without it, anyone
// who can reach the listener can act, which is logged as a warning unless it is bound to loopback.
// A person may also sign in to the page in a browser (browser-sign-in.ts): in sign-in mode (auth.signIn)
// as the built-in client status-client.ts describes; in resource-server mode with auth.browserSignIn,
// at the team's provider. Resource-server mode without it stays bearer-only.
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { OperatorSources } from '../../admin/sources.js';
import { resourceMetadataUrl } from '../../auth/challenge.js';
import type { Config } from '../../config/schema.js';
import type { Logger } from '../../observe/logger.js';
import type { AccessControl } from '../access-control.js';
import { isLoopbackHost } from '../origin-patterns.js';
import { createAdminApp, type AdminSignInOptions } from './app.js';
import type { StatusPageOAuth } from './browser-sign-in.js';
import { fixedPageOrigin } from './status-client.js';

type Fetch = Parameters<typeof serve>[0]['fetch'];

export interface AdminListener {
  /** The status page's URL, with the port actually bound. */
  readonly statusUrl: string;
  close(): Promise<void>;
}

export interface AdminSetup {
  /** With admin.onServerPort: the MCP port's fetch, which hands the admin paths to the admin app. */
  readonly onServerPort?: Fetch;
  /** Binds the admin listener (or, on the server port, only names the URL); `mcpUrl` is the MCP endpoint's. */
  listen(mcpUrl: string): Promise<AdminListener>;
}

export interface AdminSetupDeps {
  readonly sources: OperatorSources;
  readonly logger: Logger;
  readonly access: AccessControl;
  /** The MCP app, for admin.onServerPort. */
  readonly mcpApp: { fetch: Fetch };
  /** The status page's OAuth client (compose/pages-sign-in.ts); sign-in mode's exchanges its code on the MCP listener (`useLocalOrigin`). */
  readonly statusPage?: StatusPageOAuth & { useLocalOrigin?(origin: string): void };
  /** With statusPage: the secret its cookies are sealed with (auth.signIn.secret or auth.browserSignIn.secret). */
  readonly pagesSecret?: string;
}

/** The paths of the admin app; on the MCP port, only those the MCP side does not serve itself. */
const ADMIN_PATH = /^\/(status|api\/.*|signin|signin\/callback|signout|signed-out)$/;

export function startAdminListener(config: Config, { sources, logger, access, mcpApp, statusPage, pagesSecret }: AdminSetupDeps): AdminSetup {
  const { admin, server } = config;
  const host = admin.onServerPort ? server.host : admin.host;
  const loopbackOnly = isLoopbackHost(host);
  if (config.auth && !access.verifier) throw new Error('startAdminListener: auth is configured but the access control has no verifier');
  const signIn: AdminSignInOptions | undefined =
    statusPage !== undefined && pagesSecret !== undefined ? { secret: pagesSecret, oauth: statusPage, pageOrigin: fixedPageOrigin(config) } : undefined;
  // Where the MCP listener is bound, once it is: sign-in mode's status page exchanges its code there.
  const boundAt = (mcpUrl: string) => statusPage?.useLocalOrigin?.(localOriginOf(mcpUrl));
  const app = createAdminApp({
    sources,
    logger,
    loopbackOnly,
    trustedProxies: access.trustedProxies,
    ...(config.auth &&
      access.verifier && {
        auth: { verifier: access.verifier, scope: admin.scope, resourceMetadata: resourceMetadataUrl(server.publicUrl), ...(signIn && { signIn }) },
      }),
  });
  if (signIn && config.auth?.signIn && !Object.hasOwn(config.auth.signIn.scopeGrants, admin.scope)) {
    logger.warn(
      { scope: admin.scope },
      'sign-in mode without auth.signIn.scopeGrants for admin.scope: anyone who can sign in at the identity provider is granted it, and can use the status page and the admin API',
    );
  }
  if (!config.auth && !loopbackOnly) {
    logger.warn(
      { host, port: admin.onServerPort ? server.port : admin.port },
      'admin listener without auth on a non-loopback address: anyone who can reach it can see the config and the catalogue, restart upstreams, reload the config and drain this replica',
    );
  }

  if (admin.onServerPort) {
    const mcpPaths = new Set([server.path, server.ssePath, ...Object.values(config.endpoints).map((endpoint) => endpoint.path)].filter(Boolean));
    return {
      onServerPort: (request, env) => {
        const { pathname } = new URL(request.url);
        return ADMIN_PATH.test(pathname) && !mcpPaths.has(pathname) ? app.fetch(request, env) : mcpApp.fetch(request, env);
      },
      listen: async (mcpUrl) => {
        boundAt(mcpUrl);
        return { statusUrl: new URL('/status', mcpUrl).toString(), close: async () => {} };
      },
    };
  }

  return {
    async listen(mcpUrl) {
      boundAt(mcpUrl);
      const listener = await bind(app.fetch, admin.host, admin.port);
      const { port } = listener.address() as AddressInfo;
      const shownHost = admin.host.includes(':') ? `[${admin.host}]` : admin.host;
      return {
        statusUrl: `http://${shownHost}:${port}/status`,
        close: () =>
          new Promise<void>((resolve) => {
            // Nothing here streams: whatever is still open is a poll that can be cut.
            listener.close(() => resolve());
            if ('closeAllConnections' in listener) listener.closeAllConnections();
          }),
      };
    },
  };
}

function bind(fetch: Fetch, hostname: string, port: number): Promise<ServerType> {
  return new Promise((resolve, reject) => {
    const listener = serve({ fetch, hostname, port }, () => resolve(listener));
    listener.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(`the admin listener cannot bind ${hostname}:${port}: the port is in use (set admin.port, or admin.enabled: false)`, { cause: error })
          : error,
      );
    });
  });
}

/** The MCP listener's origin as this process reaches it: a wildcard bind is reached on loopback. */
/** Where the MCP listener is reached from this process (a wildcard bind is reached on loopback). */
export function localOriginOf(mcpUrl: string): string {
  const url = new URL(mcpUrl);
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  if (url.hostname === '[::]') url.hostname = '[::1]';
  return url.origin;
}
