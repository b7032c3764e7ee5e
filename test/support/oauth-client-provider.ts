// The OAuth side of an MCP client application in tests: the `OAuthClientProvider` both official
// SDKs (v1 @modelcontextprotocol/sdk, v2 @modelcontextprotocol/client) call from their `auth()`,
// keeping what a desktop client would keep (registration, tokens, PKCE verifier, discovery state)
// in memory, and recording the authorization URLs it is sent to instead of opening a browser.
import type { OAuthClientProvider as OAuthClientProviderV2, OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';
import type { OAuthClientProvider as OAuthClientProviderV1 } from '@modelcontextprotocol/sdk/client/auth.js';

export interface TestOAuthClientOptions {
  /** The loopback redirect URI the client registers and is sent back to (loopback-callback.ts). */
  readonly redirectUrl: string;
  /** An HTTPS URL of a client ID metadata document: the client's ID where the server supports them. */
  readonly clientMetadataUrl?: string;
  readonly clientName?: string;
  /** Told each authorization URL as the SDK asks to open it. */
  readonly onAuthorizationUrl?: (url: URL) => void;
}

export class TestOAuthClientProvider implements OAuthClientProviderV2, OAuthClientProviderV1 {
  /** Every URL the SDK asked to send the person to, in order. */
  readonly authorizationUrls: URL[] = [];
  readonly clientMetadataUrl: string | undefined;
  private info: StoredOAuthClientInformation | undefined;
  private stored: StoredOAuthTokens | undefined;
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;

  constructor(private readonly options: TestOAuthClientOptions) {
    this.clientMetadataUrl = options.clientMetadataUrl;
  }

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }

  get clientMetadata() {
    return {
      client_name: this.options.clientName ?? 'Switchboard test client',
      redirect_uris: [this.options.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  /** The tokens the client holds now (after sign-in, or a refresh). */
  get currentTokens(): StoredOAuthTokens | undefined {
    return this.stored;
  }

  /** The client ID it registered with (or its metadata document URL). */
  get clientId(): string | undefined {
    return this.info?.client_id;
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.info;
  }

  saveClientInformation(information: StoredOAuthClientInformation): void {
    this.info = information;
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.stored;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.stored = tokens;
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrls.push(authorizationUrl);
    this.options.onAuthorizationUrl?.(authorizationUrl);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no PKCE code verifier was saved');
    return this.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'client') this.info = undefined;
    if (scope === 'all' || scope === 'tokens') this.stored = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }
}
