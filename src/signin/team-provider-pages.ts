// Resource-server mode's browser sign-in (auth.browserSignIn): Switchboard's pages as a confidential
// client of the team's provider (team-provider.ts, the same wrapper of openid-client that sign-in
// mode's broker uses), behind the pages' OAuth interface (http/admin/browser-sign-in.ts). It hands
// back the provider's access token, which the pages check with the gateway's bearer-token verifier:
// the browser is then the principal the person's MCP client is, or nobody.
import type { BrowserSignInConfig } from '../config/browser-sign-in.js';
import { SignInRefusedError, TeamProvider, TeamProviderError } from './team-provider.js';

export interface TeamProviderPagesOptions {
  /** auth.issuer: where people sign in unless browserSignIn.issuer says otherwise. */
  readonly issuer: string;
  readonly config: BrowserSignInConfig;
  /** What this set of pages asks for (`openid` is added). */
  readonly scopes: readonly string[];
  /** The redirect URI when the pages' origin is fixed; `begin` names the one it uses. */
  readonly callbackUrl: string;
}

type Begun = { readonly url: string; readonly state: string; readonly verifier: string; readonly nonce: string } | { readonly unavailable: string };
type Finished = { readonly accessToken: string } | { readonly refused: string };

export class TeamProviderPages {
  readonly #provider: TeamProvider;

  constructor({ issuer, config, scopes, callbackUrl }: TeamProviderPagesOptions) {
    this.#provider = new TeamProvider(
      {
        issuer: config.issuer ?? issuer,
        clientId: config.clientId,
        clientSecret: config.clientSecret,
        scopes,
        authorizationParams: config.authorizationParams,
        timeoutMs: config.timeoutMs,
        resource: config.resource,
      },
      callbackUrl,
    );
  }

  async begin(redirectUri: string): Promise<Begun> {
    try {
      const { url, pending } = await this.#provider.begin(redirectUri);
      return { url, state: pending.state, verifier: pending.codeVerifier, nonce: pending.nonce };
    } catch (error) {
      if (error instanceof TeamProviderError) return { unavailable: error.message };
      throw error;
    }
  }

  async finish(callback: URL, pending: { readonly state: string; readonly verifier: string; readonly nonce?: string }): Promise<Finished> {
    // A pending sign-in without a nonce was not begun here: refused rather than checked without one.
    if (pending.nonce === undefined) return { refused: 'this sign-in was not started here' };
    try {
      return { accessToken: await this.#provider.accessToken(callback, { state: pending.state, nonce: pending.nonce, codeVerifier: pending.verifier }) };
    } catch (error) {
      if (error instanceof SignInRefusedError || error instanceof TeamProviderError) return { refused: error.message };
      throw error;
    }
  }
}
