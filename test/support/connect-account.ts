// The person's part of connecting an account (credentials.connection): they open the connect link
// in a browser of their own, sign in to the gateway, then at the upstream's provider, and read the
// page the gateway ends on.
import type { Browser } from 'playwright-core';
import { signInAtTeamIdp } from './browser.js';
import { credentialsOf } from './sign-in-team.js';
import type { TeamIdpAccount } from './team-idp.js';

export async function connectInBrowser(browser: Browser, link: string, person: TeamIdpAccount, upstreamAccount: TeamIdpAccount): Promise<string> {
  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    await page.goto(link);
    await signInAtTeamIdp(page, credentialsOf(person));
    await page.getByLabel('Username').waitFor({ timeout: 20_000 });
    await signInAtTeamIdp(page, credentialsOf(upstreamAccount));
    await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 20_000 });
    await page.waitForLoadState('load');
    return await page.locator('main').innerText();
  } finally {
    await context.close();
  }
}

/** Ada's and Bob's own accounts at the upstream's provider: other names than at the team's. */
export const ADA_UPSTREAM: TeamIdpAccount = { sub: 'ada-at-upstream', oid: 'u-ada', email: 'ada@upstream.example', name: 'Ada', groups: [], password: 'ada upstream password' };
export const BOB_UPSTREAM: TeamIdpAccount = { sub: 'bob-at-upstream', oid: 'u-bob', email: 'bob@upstream.example', name: 'Bob', groups: [], password: 'bob upstream password' };

/** The text of a tool result (or prompt, or resource), parts joined by newlines. */
export function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as { text?: string }[]).map((part) => part.text ?? '').join('\n');
}
