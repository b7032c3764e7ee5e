// The status page in sign-in mode is an OAuth client of the gateway's own authorization server,
// like any MCP client: a built-in public client (PKCE) that gets no consent page. Where the browser
// comes back to depends on where the page is opened: the MCP port's public origin (onServerPort),
// admin.publicUrl, or else a loopback address with any port (a native client, RFC 8252), which is
// how an operator reaches a loopback-bound listener or a port-forward.
import type { Config } from '../../config/schema.js';
import type { BuiltInClient } from '../../signin/authorization-server.js';

export const STATUS_CLIENT_ID = 'switchboard-status';
export const SIGN_IN_PATH = '/signin';
export const CALLBACK_PATH = '/signin/callback';
export const SIGN_OUT_PATH = '/signout';
export const SIGNED_OUT_PATH = '/signed-out';

const LOOPBACK_ORIGINS = ['http://127.0.0.1', 'http://localhost', 'http://[::1]'];

/** The origin the status page is opened at, when the config fixes one; undefined: any loopback origin. */
export function fixedPageOrigin(config: Config): string | undefined {
  if (config.admin.onServerPort) return new URL(config.server.publicUrl).origin;
  return config.admin.publicUrl === undefined ? undefined : new URL(config.admin.publicUrl).origin;
}

export function statusPageClient(config: Config): BuiltInClient {
  const origin = fixedPageOrigin(config);
  return {
    clientId: STATUS_CLIENT_ID,
    name: 'Switchboard status page',
    // oidc-provider matches a native client's loopback redirect URI on any port.
    redirectUris: (origin === undefined ? LOOPBACK_ORIGINS : [origin]).map((base) => `${base}${CALLBACK_PATH}`),
  };
}
