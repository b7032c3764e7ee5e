// The team's OpenID Connect provider, as a confidential client of Switchboard's there (openid-client,
// OpenID Certified): discovery, the authorization URL with PKCE (S256), state and nonce, the code
// exchange with its checks, and then either the person's claims (sign-in mode's broker: the ID
// token, completed from userinfo when it lacks a claim the config maps; the provider's access
// token never leaves this file) or the access token itself (resource-server mode's browser
// sign-in, auth.browserSignIn: a token for the gateway, which the caller checks as a bearer token).
// `resource` is sent only when the config names one (Entra ID refuses it: AADSTS9010010).
import * as oidc from 'openid-client';

export interface PendingSignIn {
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
}

/** The provider cannot be reached or answered out of turn: the person is told, the operator logs it. */
export class TeamProviderError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TeamProviderError';
  }
}

/** What the person's browser brought back is not a valid answer (denied, forged, replayed). */
export class SignInRefusedError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SignInRefusedError';
  }
}

/** A failed discovery is tried again after this long, not on every sign-in meanwhile. */
const RETRY_DISCOVERY_MS = 5_000;

/** Switchboard's client at the provider: auth.signIn.provider, or auth.browserSignIn's. */
export interface TeamProviderClient {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scopes: readonly string[];
  readonly authorizationParams: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** RFC 8707: sent on the authorization and token requests when set (never by sign-in mode). */
  readonly resource?: string | undefined;
}

export class TeamProvider {
  readonly #config: TeamProviderClient;
  readonly #callbackUrl: string;
  #discovered: Promise<oidc.Configuration> | undefined;
  #failedAt = 0;

  /** `callbackUrl`: the redirect URI, unless `begin` is given another (the status page's, by origin). */
  constructor(config: TeamProviderClient, callbackUrl: string) {
    this.#config = config;
    this.#callbackUrl = callbackUrl;
  }

  get issuer(): string {
    return this.#config.issuer;
  }

  /** Where to send the person's browser, and what to keep until it comes back. */
  async begin(redirectUri = this.#callbackUrl): Promise<{ url: string; pending: PendingSignIn }> {
    const configuration = await this.#configuration();
    const pending = { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() };
    const scopes = new Set(['openid', ...this.#config.scopes]);
    const { resource } = this.#config;
    const url = oidc.buildAuthorizationUrl(configuration, {
      ...withoutResource(this.#config.authorizationParams),
      ...(resource !== undefined && { resource }),
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: [...scopes].join(' '),
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    });
    return { url: url.href, pending };
  }

  /** The person's claims: the ID token's, completed from userinfo when `wanted` claims are missing. */
  async finish(callback: URL, pending: PendingSignIn, wanted: readonly string[]): Promise<Record<string, unknown>> {
    const configuration = await this.#configuration();
    const tokens = await this.#exchange(configuration, callback, pending);
    const claims: Record<string, unknown> = { ...tokens.claims() };
    const missing = wanted.some((name) => valueAt(claims, name) === undefined);
    if (missing && configuration.serverMetadata().userinfo_endpoint && typeof claims.sub === 'string') {
      try {
        const userinfo = await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub);
        for (const [name, value] of Object.entries(userinfo)) if (!(name in claims)) claims[name] = value;
      } catch {
        // The ID token's claims are what the person signed in with; a missing extra is not a failure.
      }
    }
    return claims;
  }

  /**
   * The access token the provider issued (after the same checks as `finish`, the ID token's nonce
   * included): for the caller to verify as a bearer token of the gateway, whose `sub` it then is.
   */
  async accessToken(callback: URL, pending: PendingSignIn): Promise<string> {
    const tokens = await this.#exchange(await this.#configuration(), callback, pending);
    return tokens.access_token;
  }

  async #exchange(configuration: oidc.Configuration, callback: URL, pending: PendingSignIn): Promise<oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers> {
    const { resource } = this.#config;
    try {
      return await oidc.authorizationCodeGrant(
        configuration,
        callback,
        { pkceCodeVerifier: pending.codeVerifier, expectedState: pending.state, expectedNonce: pending.nonce, idTokenExpected: true },
        resource === undefined ? undefined : { resource },
      );
    } catch (error) {
      throw classify(error, this.#config.issuer);
    }
  }

  #configuration(): Promise<oidc.Configuration> {
    if (this.#discovered === undefined || (this.#failedAt > 0 && Date.now() - this.#failedAt >= RETRY_DISCOVERY_MS)) {
      this.#failedAt = 0;
      const issuer = new URL(this.#config.issuer);
      this.#discovered = oidc
        .discovery(issuer, this.#config.clientId, undefined, oidc.ClientSecretBasic(this.#config.clientSecret), {
          timeout: Math.ceil(this.#config.timeoutMs / 1000),
          // http only for a provider on loopback (the config allows nothing else).
          ...(issuer.protocol === 'http:' && { execute: [oidc.allowInsecureRequests] }),
        })
        .catch((error: unknown) => {
          this.#failedAt = Date.now();
          throw new TeamProviderError(`the identity provider at ${this.#config.issuer} cannot be reached or its discovery document is not valid: ${messageOf(error)}`, { cause: error });
        });
    }
    return this.#discovered;
  }
}

function withoutResource(params: Readonly<Record<string, string>>): Record<string, string> {
  const { resource: _resource, ...rest } = params;
  return rest;
}

/** A claim by name, `a.b` walking into nested objects. */
export function valueAt(claims: Readonly<Record<string, unknown>>, name: string): unknown {
  let value: unknown = claims;
  for (const part of name.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function classify(error: unknown, issuer: string): Error {
  if (error instanceof oidc.AuthorizationResponseError) {
    return new SignInRefusedError(`the identity provider answered ${error.error}${error.error_description ? `: ${error.error_description}` : ''}`, { cause: error });
  }
  if (error instanceof oidc.ResponseBodyError) {
    return new SignInRefusedError(`the identity provider refused the sign-in: ${error.error}${error.error_description ? ` (${error.error_description})` : ''}`, { cause: error });
  }
  if (error instanceof TypeError || (error instanceof Error && /fetch|timeout|abort/i.test(error.message))) {
    return new TeamProviderError(`the identity provider at ${issuer} cannot be reached: ${messageOf(error)}`, { cause: error });
  }
  return new SignInRefusedError(`the answer from the identity provider is not valid: ${messageOf(error)}`, { cause: error });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
