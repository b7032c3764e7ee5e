// A real browser for sign-in tests: Debian's Chromium driven by playwright-core, and the two things
// a person does in it during an MCP client's sign-in: the login form at the team's identity provider
// (team-idp.ts) and Switchboard's consent page. Files that use it skip without Chromium, or fail in
// CI (required-tools.ts): `describe.skipIf(skipWithoutChromium())(...)`.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { skipWithout } from './required-tools.js';

export const CHROMIUM = '/usr/bin/chromium';

/** True when the file should skip (no Chromium here, outside CI); throws in CI without it. */
export function skipWithoutChromium(): boolean {
  return skipWithout(existsSync(CHROMIUM), `${CHROMIUM} (apt-get install chromium)`);
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

export interface Credentials {
  /** The account's email (or its `sub`). */
  readonly username: string;
  readonly password: string;
}

const STEP_TIMEOUT_MS = 15_000;

/**
 * Signs in at the team's identity provider if its login form is shown. Call it once the page has
 * navigated (e.g. after `page.goto(authorizationUrl)`, which follows the HTTP redirects to the
 * provider): when the browser already has a session there, the provider redirects straight on, no
 * form is shown, and this returns at once. Resolves once the form is submitted, not when the flow
 * has finished: wait for what follows (the consent page, or the client's callback).
 */
export async function signInAtTeamIdp(page: Page, credentials: Credentials): Promise<void> {
  await page.waitForLoadState('load');
  const username = page.getByLabel('Username');
  if (!(await username.isVisible())) return;
  await username.fill(credentials.username);
  await page.getByLabel('Password').fill(credentials.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Clicks "Allow" on Switchboard's consent page (an HTML form naming the client, "Allow" and "Deny"). */
export async function approveConsent(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Allow', exact: true }).click({ timeout: STEP_TIMEOUT_MS });
}
