// The small pages of the status page's sign-in: refused (signed in, not an admin), signed out, and
// a sign-in that failed. Server-rendered with hono/html (every value escaped: names and groups come
// from the team's provider), one inline stylesheet allowed by nonce, no script, forms to this
// origin only.
import { html } from 'hono/html';
import type { AdminSession } from './session-cookie.js';
import { page, type RenderedPage } from '../sign-in/page-shell.js';
import { SIGN_OUT_PATH } from './status-client.js';

/** Who the session says the person is, as the pages show it. */
export function personLabel(session: Pick<AdminSession, 'sub' | 'email' | 'name'>): string {
  const shown = session.email ?? session.name;
  return shown === undefined ? session.sub : `${shown} (${session.sub})`;
}

const signOutForm = html`<form method="post" action="${SIGN_OUT_PATH}"><button type="submit">Sign out</button></form>`;

export function forbiddenPage(session: AdminSession, scope: string): RenderedPage {
  return page(
    'Not an admin of this gateway',
    html`<h1>Not an admin of this gateway</h1>
<p>You are signed in as <strong>${personLabel(session)}</strong>${session.groups.length > 0 ? html`, in the groups ${session.groups.map((group, index) => html`${index > 0 ? ', ' : ''}<code>${group}</code>`)}` : ', in no group'}.</p>
<p>The status page needs the scope <code>${scope}</code>, which your sign-in was not granted. The gateway's operators grant it by group (<code>auth.signIn.scopeGrants</code>).</p>
${signOutForm}`,
  );
}

export function signedOutPage(signInUrl: string): RenderedPage {
  return page('Signed out', html`<h1>Signed out</h1><p>You are signed out of the status page.</p><p><a href="${signInUrl}">Sign in again</a></p>`);
}

export function signInErrorPage(title: string, description: string, retryUrl?: string): RenderedPage {
  return page(
    title,
    html`<h1>${title}</h1><p>${description}</p>${retryUrl === undefined ? '' : html`<p><a href="${retryUrl}">Sign in again</a></p>`}`,
  );
}
