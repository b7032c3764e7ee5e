// RFC 9728 Protected Resource Metadata: how an MCP client finds the authorization server for this
// gateway. Served at the root well-known path and at the one with the MCP endpoint's path appended
// (the MCP authorization spec tells clients to try both), open to anyone: the client has no token
// yet when it asks. A browser-based client asks with an MCP-Protocol-Version header (the SDKs send
// one), which is not CORS-safelisted: its preflight (OPTIONS) is answered here too.
import type { Hono } from 'hono';
import type { AppEnv } from '../app-env.js';

export interface ProtectedResourceMetadata {
  /** The canonical URI (server.publicUrl). */
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  readonly scopes_supported?: readonly string[];
  readonly bearer_methods_supported: readonly ['header'];
  readonly resource_name?: string;
}

export interface WellKnownRouteOptions {
  readonly metadata: ProtectedResourceMetadata;
  /** Endpoint paths to serve it under as well as the root: server.path and publicUrl's path. */
  readonly paths: readonly string[];
  /** Whether it is also served at the root well-known path (default true: the default endpoint's). */
  readonly root?: boolean;
}

export const WELL_KNOWN_PATH = '/.well-known/oauth-protected-resource';

const PREFLIGHT_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET',
  'Access-Control-Allow-Headers': 'MCP-Protocol-Version',
  'Access-Control-Max-Age': '600',
});

export function registerWellKnownRoutes(app: Hono<AppEnv>, { metadata, paths, root = true }: WellKnownRouteOptions): void {
  const routes = new Set(root ? [WELL_KNOWN_PATH] : []);
  for (const path of paths) if (path !== '/' && path !== '') routes.add(`${WELL_KNOWN_PATH}${path.replace(/\/$/, '')}`);
  for (const route of routes) {
    app.get(route, (c) =>
      c.json(metadata, 200, {
        // Browser-based clients read it from another origin; it holds nothing secret.
        'Access-Control-Allow-Origin': '*',
        'Cache-Control': 'public, max-age=300',
      }),
    );
    app.options(route, (c) => c.body(null, 204, PREFLIGHT_HEADERS));
  }
}
