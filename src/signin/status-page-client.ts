// The status page as an OAuth client of the gateway's own authorization server (openid-client):
// the authorization URL with PKCE (S256) and state, and the code exchange with its checks. The
// browser is sent to the issuer's public URL; the token request goes to the gateway's local address
// instead (a pod may not reach its own public URL; the sign-in listener sets the forwarded scheme
// and host to the issuer's, so the authorization server sees the request as it would by the public
// URL). The HTTP side (http/admin/browser-sign-in.ts) keeps what is pending in a cookie and checks
// the token it gets with the gateway's token verifier.
import * as oauth from 'openid-client';
import { ROUTES } from './paths.js';

export interface StatusPageClientOptions {
  /** The gateway's issuer (its public origin). */
  readonly issuer: string;
  readonly clientId: string;
  /** The resource the token is for (server.publicUrl): the audience the gateway's verifier expects. */
  readonly resource: string;
  /** What to ask for (admin.scope, and the OpenID scopes that say who signed in). */
  readonly scope: string;
  readonly timeoutMs: number;
}

export interface StatusPageAuthorization {
  readonly url: string;
  readonly state: string;
  readonly verifier: string;
}

export type StatusPageExchange = { readonly accessToken: string } | { readonly refused: string };

export class StatusPageClient {
  readonly #options: StatusPageClientOptions;
  readonly #config: oauth.Configuration;
  #localOrigin: string | undefined;

  constructor(options: StatusPageClientOptions) {
    this.#options = options;
    const { issuer } = options;
    this.#config = new oauth.Configuration(
      { issuer, authorization_endpoint: `${issuer}${ROUTES.authorization}`, token_endpoint: `${issuer}${ROUTES.token}` },
      options.clientId,
      { token_endpoint_auth_method: 'none' },
      oauth.None(),
    );
    const issuerOrigin = new URL(issuer).origin;
    this.#config[oauth.customFetch] = (url, init) => {
      const target = new URL(url);
      const local = this.#localOrigin;
      const sent = local !== undefined && target.origin === issuerOrigin ? new URL(`${target.pathname}${target.search}`, local) : target;
      return fetch(sent, { ...init, signal: AbortSignal.timeout(options.timeoutMs) } as RequestInit);
    };
    // The local address is plain http: the gateway serves no TLS itself (an ingress does).
    oauth.allowInsecureRequests(this.#config);
  }

  /** Where the gateway's MCP listener is bound (e.g. http://127.0.0.1:8080), once it is. */
  useLocalOrigin(origin: string): void {
    this.#localOrigin = origin;
  }

  async begin(redirectUri: string): Promise<StatusPageAuthorization> {
    const verifier = oauth.randomPKCECodeVerifier();
    const state = oauth.randomState();
    const url = oauth.buildAuthorizationUrl(this.#config, {
      redirect_uri: redirectUri,
      scope: this.#options.scope,
      resource: this.#options.resource,
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, state, verifier };
  }

  /** `callback`: the redirect URI with the query the browser came back with. */
  async finish(callback: URL, pending: { readonly state: string; readonly verifier: string }): Promise<StatusPageExchange> {
    try {
      const answer = await oauth.authorizationCodeGrant(this.#config, callback, { pkceCodeVerifier: pending.verifier, expectedState: pending.state }, { resource: this.#options.resource });
      return { accessToken: answer.access_token };
    } catch (error) {
      if (error instanceof oauth.AuthorizationResponseError) return { refused: `${error.error}${error.error_description ? `: ${error.error_description}` : ''}` };
      if (error instanceof oauth.ResponseBodyError) return { refused: `${error.error}${error.error_description ? `: ${error.error_description}` : ''}` };
      if (error instanceof Error) return { refused: `the code could not be exchanged: ${error.message}` };
      throw error;
    }
  }
}
