// A real authorization server (oidc-provider, OpenID Certified) that issues OPAQUE access tokens
// (its default format) and introspects them (RFC 7662), on 127.0.0.1, for the resource-server tests.
// Tokens come from the client_credentials grant with a resource indicator (RFC 8707), which a test
// drives with one POST, no browser. oidc-provider leaves `sub` out of such tokens (there is no
// person), so the provider is configured to add the client's id as `sub` (extraTokenClaims), as
// Okta and Keycloak do for a service account. A test can count introspection calls, make the
// introspection endpoint fail or hang, and revoke a token.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import Provider, { errors } from 'oidc-provider';

/** The gateway's own client: it may introspect every token and get nothing else. */
export const GATEWAY_CLIENT = { clientId: 'switchboard', clientSecret: 'switchboard-introspection-secret' } as const;

/** How the introspection endpoint behaves: as it should, 500s, closing the connection, or never answering. */
export type IntrospectionMode = 'answer' | 'fail' | 'drop' | 'hang';

export interface OpaqueTokenProvider {
  readonly issuer: string;
  readonly introspectionEndpoint: string;
  /** Requests the introspection endpoint received, whatever became of them. */
  readonly introspections: number;
  setIntrospection(mode: IntrospectionMode): void;
  /** An opaque access token for `resource` (none: a token without an audience), via client_credentials. */
  token(options: { readonly client: string; readonly scope: string; readonly resource?: string }): Promise<string>;
  /** What the introspection endpoint says of a token, asked as the gateway's client (counted too). */
  introspect(token: string): Promise<Record<string, unknown>>;
  /** RFC 7009 revocation by the client the token was issued to. */
  revoke(client: string, token: string): Promise<void>;
  stop(): Promise<void>;
}

export interface OpaqueTokenProviderOptions {
  /** The resources it issues tokens for (anything else: invalid_target). */
  readonly resources: readonly string[];
  /** Clients that may use client_credentials, by id, with the scopes each may ask for. */
  readonly clients: Readonly<Record<string, string>>;
  /** Access token lifetime in seconds; default 600. */
  readonly accessTokenTtl?: number;
}

const SECRET_OF = (client: string) => `${client}-secret`;

export async function startOpaqueTokenProvider({ resources, clients, accessTokenTtl = 600 }: OpaqueTokenProviderOptions): Promise<OpaqueTokenProvider> {
  const server: Server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const allScopes = [...new Set(Object.values(clients).flatMap((scope) => scope.split(' ')))];

  const provider = new Provider(issuer, {
    clients: [
      // A resource server's client: no grant of its own, only introspection (and its secret).
      { client_id: GATEWAY_CLIENT.clientId, client_secret: GATEWAY_CLIENT.clientSecret, grant_types: [], response_types: [], redirect_uris: [] },
      ...Object.entries(clients).map(([clientId, scope]) => ({
        client_id: clientId,
        client_secret: SECRET_OF(clientId),
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        scope,
      })),
    ],
    scopes: allScopes,
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      // A client may revoke its own tokens (RFC 7009), as the default does, without its notice.
      revocation: { enabled: true, allowedPolicy: (_ctx, client, token) => Promise.resolve(client.clientId === token.clientId) },
      introspection: {
        enabled: true,
        // Only the gateway may introspect (a provider's real policy: not every client may read every token).
        allowedPolicy: (_ctx, client) => Promise.resolve(client.clientId === GATEWAY_CLIENT.clientId),
      },
      resourceIndicators: {
        enabled: true,
        getResourceServerInfo: (_ctx, resource) => {
          if (!resources.includes(resource)) throw new errors.InvalidTarget();
          return Promise.resolve({ scope: allScopes.join(' '), audience: resource, accessTokenFormat: 'opaque', accessTokenTTL: accessTokenTtl });
        },
      },
    },
    ttl: { ClientCredentials: accessTokenTtl },
    extraTokenClaims: (_ctx, token) => Promise.resolve(token.kind === 'ClientCredentials' ? { sub: `client:${token.clientId}` } : undefined),
  });
  // A fault inside the provider would otherwise be only a 500 the test cannot explain.
  provider.on('server_error', (_ctx, error) => console.error('oidc-provider server_error', error));

  let mode: IntrospectionMode = 'answer';
  let introspections = 0;
  const hanging = new Set<Socket>();
  const callback = provider.callback();
  server.on('request', (request, response) => {
    if (request.method === 'POST' && request.url === '/token/introspection') {
      introspections += 1;
      if (mode === 'fail') {
        response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"server_error"}');
        return;
      }
      if (mode === 'drop') {
        request.socket.destroy();
        return;
      }
      if (mode === 'hang') {
        hanging.add(request.socket);
        return;
      }
    }
    void callback(request, response);
  });

  const basic = (client: string, secret: string) => `Basic ${Buffer.from(`${client}:${secret}`).toString('base64')}`;
  async function post(path: string, client: string, form: Record<string, string>): Promise<Response> {
    const secret = client === GATEWAY_CLIENT.clientId ? GATEWAY_CLIENT.clientSecret : SECRET_OF(client);
    return fetch(`${issuer}${path}`, {
      method: 'POST',
      headers: { authorization: basic(client, secret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
  }

  return {
    issuer,
    introspectionEndpoint: `${issuer}/token/introspection`,
    get introspections() {
      return introspections;
    },
    setIntrospection(next) {
      mode = next;
      if (next !== 'hang') for (const socket of hanging) socket.destroy();
    },
    async token({ client, scope, resource }) {
      const response = await post('/token', client, { grant_type: 'client_credentials', scope, ...(resource !== undefined && { resource }) });
      const body = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
      if (body.access_token === undefined) throw new Error(`no token from the provider: ${response.status} ${body.error} ${body.error_description}`);
      return body.access_token;
    },
    async introspect(token) {
      return (await (await post('/token/introspection', GATEWAY_CLIENT.clientId, { token })).json()) as Record<string, unknown>;
    },
    async revoke(client, token) {
      const response = await post('/token/revocation', client, { token, token_type_hint: 'access_token' });
      if (response.status !== 200) throw new Error(`revocation failed: ${response.status} ${await response.text()}`);
    },
    async stop() {
      for (const socket of hanging) socket.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
