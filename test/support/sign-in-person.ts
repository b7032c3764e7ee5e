// The person's part of a sign-in through Switchboard (auth.signIn), in Chromium: open the client's
// authorization URL, sign in at the team's provider, then either read and answer Switchboard's
// consent page or (consent remembered, a trusted client) be sent straight back to the client. What
// the browser saw is returned, so a test can say whether a consent page was shown and what it said.
import type { Browser, Response } from 'playwright-core';
import { signInAtTeamIdp, type Credentials } from './browser.js';

export interface PersonVisit {
  /** The consent page's text, when one was shown. */
  readonly consentText: string | undefined;
  /** How many consent pages (a 200 HTML answer at /oauth/interaction/) the browser was shown. */
  readonly consentPagesShown: number;
}

export interface PersonSignInOptions {
  readonly credentials: Credentials;
  /** Where the client is sent back to (its redirect URI): the flow is over when the browser gets there. */
  readonly returnTo: string;
  /** 'allow' or 'deny' on the consent page; 'none' when the test expects no consent page. */
  readonly consent: 'allow' | 'deny' | 'none';
}

const STEP_TIMEOUT_MS = 20_000;

export async function personSignsIn(browser: Browser, authorizationUrl: string, options: PersonSignInOptions): Promise<PersonVisit> {
  // A fresh context each time: no cookies at the provider or at Switchboard from an earlier sign-in.
  const context = await browser.newContext();
  const page = await context.newPage();
  let consentPagesShown = 0;
  page.on('response', (response: Response) => {
    if (isConsentPage(response)) consentPagesShown += 1;
  });
  try {
    await page.goto(authorizationUrl);
    await signInAtTeamIdp(page, options.credentials);
    let consentText: string | undefined;
    if (options.consent !== 'none') {
      const button = page.getByRole('button', { name: options.consent === 'allow' ? 'Allow' : 'Deny', exact: true });
      await button.waitFor({ timeout: STEP_TIMEOUT_MS });
      consentText = await page.locator('main').innerText();
      await button.click();
    }
    await page.waitForURL((url) => url.href.startsWith(options.returnTo), { timeout: STEP_TIMEOUT_MS });
    return { consentText, consentPagesShown };
  } finally {
    await context.close();
  }
}

function isConsentPage(response: Response): boolean {
  const url = URL.parse(response.url());
  return url !== null && url.pathname.startsWith('/oauth/interaction/') && response.status() === 200 && (response.headers()['content-type'] ?? '').startsWith('text/html');
}

/** The claims of a JWT (not verified: the test reads what the client holds). */
export function jwtClaims(token: string | undefined): Record<string, unknown> {
  const payload = token?.split('.')[1];
  if (payload === undefined) throw new Error('not a JWT');
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
}
