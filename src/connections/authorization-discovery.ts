// Where an upstream MCP server's people sign in: its protected resource metadata (RFC 9728, named
// by the 401 challenge's `resource_metadata`, else at the well-known path of its URL), whose
// `authorization_servers` name the authorization server, and that server's metadata (RFC 8414,
// else OpenID discovery, as the MCP authorization spec tries them). On oauth4webapi (openid-client's
// own layer): the documents' identifiers are checked against what was asked for. One more rule of
// ours: the token endpoint must be on the issuer's host, so a metadata document cannot send the
// codes and refresh tokens of the gateway's people to another host.
import * as oauth from 'oauth4webapi';

export interface UpstreamAuthorization {
  /** The resource (RFC 8707) tokens are asked for: the PRM's `resource`. */
  readonly resource: string;
  /** The scopes the upstream says it supports, from its PRM. */
  readonly scopesSupported: readonly string[];
  readonly server: oauth.AuthorizationServer;
}

export class UpstreamAuthorizationError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'UpstreamAuthorizationError';
  }
}

export interface DiscoveryOptions {
  /** The upstream's MCP URL. */
  readonly url: string;
  /** `resource_metadata` from the upstream's 401 challenge, when one was seen. */
  readonly resourceMetadataUrl?: string;
  /** From config: skip the PRM and use this authorization server. */
  readonly authorizationServer?: string;
  readonly timeoutMs: number;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export async function discoverUpstreamAuthorization(options: DiscoveryOptions): Promise<UpstreamAuthorization> {
  const upstream = new URL(options.url);
  let resource = `${upstream.origin}${upstream.pathname}`;
  let scopesSupported: readonly string[] = [];
  let issuer = options.authorizationServer;
  if (issuer === undefined) {
    const metadata = await protectedResourceMetadata(upstream, options);
    resource = metadata.resource;
    scopesSupported = metadata.scopes_supported ?? [];
    issuer = metadata.authorization_servers?.[0];
    if (issuer === undefined) throw new UpstreamAuthorizationError(`the protected resource metadata of ${upstream.origin} names no authorization server`);
  }
  const server = await authorizationServerMetadata(new URL(issuer), options.timeoutMs);
  assertTokenEndpointOnIssuerHost(server);
  return { resource, scopesSupported, server };
}

/**
 * The PRM named by the challenge (on the upstream's own origin), else at the well-known path with
 * the upstream's path, else at the root one (the MCP spec's order). Its `resource` must be the
 * upstream's URL or a prefix of it on the same origin (as the MCP SDKs accept it).
 */
async function protectedResourceMetadata(upstream: URL, options: DiscoveryOptions): Promise<ProtectedResource> {
  const path = upstream.pathname === '/' ? '' : upstream.pathname.replace(/\/$/, '');
  const candidates = [
    ...(options.resourceMetadataUrl !== undefined && URL.parse(options.resourceMetadataUrl)?.origin === upstream.origin ? [options.resourceMetadataUrl] : []),
    `${upstream.origin}/.well-known/oauth-protected-resource${path}`,
    `${upstream.origin}/.well-known/oauth-protected-resource`,
  ];
  let lastProblem = 'no document';
  for (const candidate of [...new Set(candidates)]) {
    let response: Response;
    try {
      response = await fetch(candidate, { headers: { accept: 'application/json' }, redirect: 'manual', signal: AbortSignal.timeout(options.timeoutMs) });
    } catch (error) {
      lastProblem = messageOf(error);
      continue;
    }
    if (response.status !== 200) {
      lastProblem = `${candidate} answered ${response.status}`;
      continue;
    }
    const document = (await response.json().catch(() => undefined)) as Partial<ProtectedResource> | undefined;
    const resource = typeof document?.resource === 'string' ? URL.parse(document.resource) : null;
    if (resource === null || resource.origin !== upstream.origin || !`${upstream.pathname}/`.startsWith(`${resource.pathname.replace(/\/$/, '')}/`)) {
      throw new UpstreamAuthorizationError(`the protected resource metadata at ${candidate} is for ${String(document?.resource)}, not for ${upstream.origin}${upstream.pathname}`);
    }
    return {
      resource: document!.resource!,
      ...(Array.isArray(document!.authorization_servers) && { authorization_servers: document!.authorization_servers.filter((value) => typeof value === 'string') }),
      ...(Array.isArray(document!.scopes_supported) && { scopes_supported: document!.scopes_supported.filter((value) => typeof value === 'string') }),
    };
  }
  throw new UpstreamAuthorizationError(`the protected resource metadata of ${upstream.origin}${upstream.pathname} cannot be read: ${lastProblem}`);
}

interface ProtectedResource {
  readonly resource: string;
  readonly authorization_servers?: readonly string[];
  readonly scopes_supported?: readonly string[];
}

/** RFC 8414 first, then OpenID discovery; the document's issuer must be the one asked for. */
async function authorizationServerMetadata(issuer: URL, timeoutMs: number): Promise<oauth.AuthorizationServer> {
  let lastError: unknown;
  for (const algorithm of ['oauth2', 'oidc'] as const) {
    try {
      const response = await oauth.discoveryRequest(issuer, { ...requestOptions(issuer, timeoutMs), algorithm });
      return await oauth.processDiscoveryResponse(issuer, response);
    } catch (error) {
      lastError = error;
    }
  }
  throw new UpstreamAuthorizationError(`the authorization server ${issuer.href} publishes no usable metadata: ${messageOf(lastError)}`, { cause: lastError });
}

function assertTokenEndpointOnIssuerHost(server: oauth.AuthorizationServer): void {
  const issuerHost = new URL(server.issuer).host;
  for (const [name, endpoint] of [
    ['token_endpoint', server.token_endpoint],
    ['authorization_endpoint', server.authorization_endpoint],
    ['revocation_endpoint', server.revocation_endpoint],
    ['registration_endpoint', server.registration_endpoint],
  ] as const) {
    if (endpoint !== undefined && new URL(endpoint).host !== issuerHost) {
      throw new UpstreamAuthorizationError(`the authorization server ${server.issuer} names its ${name} on another host (${new URL(endpoint).host}); refused`);
    }
  }
  if (server.token_endpoint === undefined || server.authorization_endpoint === undefined) {
    throw new UpstreamAuthorizationError(`the authorization server ${server.issuer} names no authorization or token endpoint`);
  }
}

/** http only on loopback (tests, a local provider); everything else must be https. */
function requestOptions(url: URL, timeoutMs: number): oauth.HttpRequestOptions<'GET'> {
  return { signal: AbortSignal.timeout(timeoutMs), ...(url.protocol === 'http:' && LOOPBACK.has(url.hostname) && { [oauth.allowInsecureRequests]: true }) };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
