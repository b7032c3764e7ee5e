// The sign-in pages a person sees: the consent page and the error page. Server-rendered with
// hono/html (every value escaped: a client's name is whatever it registered), no external assets,
// one inline stylesheet allowed by a per-response nonce, and a CSP that allows nothing else: no
// script at all, forms only to this origin (and, for the consent form, the client's redirect origin,
// which the browser reaches by the redirect that follows the decision).
import { randomBytes } from 'node:crypto';
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { ConsentRequest } from '../../signin/sign-in.js';

export interface RenderedPage {
  readonly html: string;
  readonly csp: string;
}

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1b1f24}
main{max-width:34rem;margin:4rem auto;padding:2rem;background:#fff;border:1px solid #d0d7de;border-radius:8px}
h1{font-size:1.4rem;margin-top:0}
code{font-size:.9em;background:#eef1f4;padding:.1em .3em;border-radius:4px;word-break:break-all}
ul{padding-left:1.2rem}
.actions{display:flex;gap:1rem;margin-top:1.5rem}
button{font:inherit;padding:.5rem 1.4rem;border-radius:6px;border:1px solid #8c959f;background:#fff;cursor:pointer}
button[value=allow]{background:#1f6feb;border-color:#1f6feb;color:#fff}
button:focus-visible{outline:3px solid #0969da;outline-offset:2px}
.note{color:#57606a;font-size:.9rem}
.warn{color:#9a6700}
`;

function page(title: string, body: HtmlEscapedString | Promise<HtmlEscapedString>, formTargets: readonly string[] = []): RenderedPage {
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
  const formAction = ["'self'", ...formTargets].join(' ');
  return {
    html: String(document),
    csp: `default-src 'none'; style-src 'nonce-${nonce}'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
  };
}

export function errorPage(error: string, description: string): RenderedPage {
  return page(
    'Sign-in failed',
    html`<h1>Sign-in failed</h1>
<p>${description === '' ? 'The request could not be completed.' : description}</p>
<p class="note">Error: <code>${error}</code>. Go back to your MCP client and connect again; if this happens again, tell the team that runs this gateway.</p>`,
  );
}

export function consentPage(request: ConsentRequest, action: string, formToken: string): RenderedPage {
  const name = request.clientName ?? request.clientId;
  const resources = Object.entries(request.scopes).filter(([resource]) => resource !== '');
  const identity = request.verifiedByDocument
    ? html`Identified by its metadata document on <strong>${request.clientOrigin}</strong>.`
    : html`It registered itself with this name; it will return you to <strong>${request.clientOrigin}</strong>.`;
  const redirect = URL.parse(request.redirectUri);
  // A private-use scheme (a native app) has no origin: the scheme itself is the source.
  const redirectTarget = redirect === null ? undefined : redirect.origin === 'null' ? redirect.protocol : redirect.origin;
  return page(
    `Allow ${name}?`,
    html`<h1>Allow ${name} to use the MCP gateway as you?</h1>
<p>${identity}</p>
<p>You are signed in as <strong>${request.person.email ?? request.person.name ?? request.person.sub}</strong>.</p>
${resources.length === 0
  ? html`<p>It asks for no scopes beyond signing you in.</p>`
  : resources.map(
      ([resource, scopes]) => html`<p>It asks for access to <code>${resource}</code>${scopes.length > 0 ? html` with the scopes:` : ''}</p>
${scopes.length > 0 ? html`<ul>${scopes.map((scope) => html`<li><code>${scope}</code></li>`)}</ul>` : ''}`,
    )}
${request.withheld.length > 0 ? html`<p class="warn">Not granted, since you are not in a group that may have them: ${request.withheld.map((scope, index) => html`${index > 0 ? ', ' : ''}<code>${scope}</code>`)}.</p>` : ''}
<form method="post" action="${action}">
<input type="hidden" name="form_token" value="${formToken}">
<div class="actions">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>
<p class="note">Client ID: <code>${request.clientId}</code></p>`,
    redirectTarget === undefined ? [] : [redirectTarget],
  );
}
