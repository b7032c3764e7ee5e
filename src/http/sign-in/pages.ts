// The sign-in pages a person sees: the consent page and the error page. Server-rendered with
// hono/html (every value escaped: a client's name is whatever it registered), no external assets,
// one inline stylesheet allowed by a per-response nonce, and a CSP that allows nothing else: no
// script at all, forms only to this origin (and, for the consent form, the client's redirect origin,
// which the browser reaches by the redirect that follows the decision).
import { html } from 'hono/html';
import type { ConsentRequest } from '../../signin/sign-in.js';
import { page, type RenderedPage } from './page-shell.js';

export type { RenderedPage } from './page-shell.js';

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
