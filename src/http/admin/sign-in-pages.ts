// The small pages of the status page's sign-in: refused (signed in, not an admin), signed out, and
// a sign-in that failed. Server-rendered with hono/html (every value escaped: names and groups come
// from the team's provider), one inline stylesheet allowed by nonce, no script, forms to this
// origin only.
import { randomBytes } from 'node:crypto';
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { AdminSession } from './session-cookie.js';
import { SIGN_OUT_PATH } from './status-client.js';

export interface RenderedPage {
  readonly html: string;
  readonly csp: string;
}

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1b1f24}
main{max-width:34rem;margin:4rem auto;padding:2rem;background:#fff;border:1px solid #d0d7de;border-radius:8px}
h1{font-size:1.4rem;margin-top:0}
code{font-size:.9em;background:#eef1f4;padding:.1em .3em;border-radius:4px;word-break:break-all}
button{font:inherit;padding:.4rem 1.2rem;border-radius:6px;border:1px solid #8c959f;background:#fff;cursor:pointer}
button:focus-visible,a:focus-visible{outline:3px solid #0969da;outline-offset:2px}
.note{color:#57606a;font-size:.9rem}
`;

/** A small page of the sign-in family: the shell, the stylesheet by nonce, no script. */
export function page(title: string, body: HtmlEscapedString | Promise<HtmlEscapedString>): RenderedPage {
  const nonce = randomBytes(16).toString('base64');
  const document = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title}</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body><main>${body}</main></body>
</html>`;
  return { html: String(document), csp: `default-src 'none'; style-src 'nonce-${nonce}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'` };
}

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
