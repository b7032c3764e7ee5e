// The sign-in step at the tests' identity provider (team-idp.ts): a login page of its own (not
// oidc-provider's devInteractions, whose form and wording are not a provider's), and consent granted
// without asking, as a provider does for a first-party app: the person's only step there is the form.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';

export interface LoginAccount {
  readonly sub: string;
  readonly email: string;
  readonly password: string;
}

const MAX_FORM_BYTES = 8_192;

/** Handles `<prefix>/interaction/<uid>` (GET) and `<prefix>/interaction/<uid>/login` (POST); false for any other path. */
export async function handleInteraction(
  provider: Provider,
  accounts: readonly LoginAccount[],
  prefix: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<boolean> {
  const path = new URL(request.url ?? '/', 'http://idp').pathname;
  const match = new RegExp(`^${escapeRegExp(prefix)}/interaction/([\\w-]+)(/login)?$`).exec(path);
  if (match === null) return false;
  const details = await provider.interactionDetails(request, response);
  if (match[2] === '/login' && request.method === 'POST') {
    const form = new URLSearchParams(await readBody(request));
    const username = form.get('username') ?? '';
    const account = accounts.find((candidate) => candidate.email === username || candidate.sub === username);
    if (account === undefined || account.password !== form.get('password')) {
      page(response, 401, loginForm(`${prefix}/interaction/${details.uid}/login`, username, 'Wrong username or password.'));
      return true;
    }
    await provider.interactionFinished(request, response, { login: { accountId: account.sub } }, { mergeWithLastSubmission: false });
    return true;
  }
  if (details.prompt.name === 'login') {
    page(response, 200, loginForm(`${prefix}/interaction/${details.uid}/login`, '', undefined));
    return true;
  }
  // Consent: grant what the request asks for, as the person's own organisation's app would.
  const accountId = details.session?.accountId;
  const clientId = details.params.client_id;
  if (accountId === undefined || typeof clientId !== 'string') throw new Error(`interaction ${details.uid}: consent without a session or client`);
  const grant = (details.grantId !== undefined && (await provider.Grant.find(details.grantId))) || new provider.Grant({ accountId, clientId });
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
  await provider.interactionFinished(request, response, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
  return true;
}

function loginForm(action: string, username: string, error: string | undefined): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Sign in to your organisation</title></head>
<body>
<main>
<h1>Sign in to your organisation</h1>
${error === undefined ? '' : `<p role="alert">${escapeHtml(error)}</p>`}
<form method="post" action="${escapeHtml(action)}">
<p><label for="username">Username</label> <input id="username" name="username" autocomplete="username" value="${escapeHtml(username)}" required></p>
<p><label for="password">Password</label> <input id="password" name="password" type="password" autocomplete="current-password" required></p>
<p><button type="submit">Sign in</button></p>
</form>
</main>
</body>
</html>`;
}

function page(response: ServerResponse, status: number, html: string): void {
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) throw new Error('login form too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
