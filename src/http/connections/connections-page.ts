// The person's Connections page (GET /connections): each server whose credentials are connections,
// with the person's state there, the scopes granted, when they connected and last used it, a
// Connect / Reconnect link and a Disconnect button, each with a token bound to the person, the
// server and the action (form-token.ts). Connect is a link, not a form: it ends at the upstream's
// authorization server, which the page's CSP (form-action 'self') would stop a form's redirect to;
// it only starts a connection that the person completes there themselves. Disconnect is a plain
// form (no script) posting to this origin. The page family's shell (admin/sign-in-pages.ts):
// escaped values, one stylesheet by nonce, no script.
import { html } from 'hono/html';
import type { ConnectionSummary } from '../../connections/upstream-connector.js';
import { personLabel } from '../admin/sign-in-pages.js';
import { page, type RenderedPage } from '../sign-in/page-shell.js';
import type { AdminSession } from '../admin/session-cookie.js';

export const CONNECTIONS_PATH = '/connections';
export const connectFormPath = (server: string): string => `${CONNECTIONS_PATH}/servers/${encodeURIComponent(server)}/connect`;
export const disconnectFormPath = (server: string): string => `${CONNECTIONS_PATH}/servers/${encodeURIComponent(server)}/disconnect`;

export interface ServerConnectionRow {
  readonly server: string;
  /** undefined: the store did not answer for this server. */
  readonly summary: ConnectionSummary | undefined;
  readonly connectToken: string;
  readonly disconnectToken: string;
}

const STATE_TEXT: Record<ConnectionSummary['state'], string> = {
  connected: 'Connected',
  'needs-reconnect': 'Needs reconnecting',
  'not-connected': 'Not connected',
};

export function connectionsPage(session: AdminSession, rows: readonly ServerConnectionRow[], signOutPath: string, message?: string): RenderedPage {
  return page(
    'Your connections',
    html`<h1>Your connections</h1>
<p>Signed in as <strong>${personLabel(session)}</strong>.</p>
${message === undefined ? '' : html`<p role="status">${message}</p>`}
${rows.length === 0 ? html`<p>No server behind this gateway needs your own account.</p>` : rows.map((row, index) => serverSection(row, index))}
<form method="post" action="${signOutPath}"><button type="submit">Sign out</button></form>`,
  );
}

/** `index` names the heading: a server's name may hold spaces, which an id cannot. */
function serverSection(row: ServerConnectionRow, index: number): ReturnType<typeof html> {
  const { server, summary } = row;
  const state = summary?.state;
  return html`<section aria-labelledby="server-${index}" data-server="${server}">
<h2 id="server-${index}">${server}</h2>
<dl>
<dt>State</dt><dd data-field="state">${state === undefined ? 'Unknown (the gateway\'s store did not answer; try again)' : STATE_TEXT[state]}</dd>
${summary?.scope === undefined ? '' : html`<dt>Scopes granted</dt><dd data-field="scopes">${summary.scope.split(' ').filter(Boolean).map((scope, index) => html`${index > 0 ? ' ' : ''}<code>${scope}</code>`)}</dd>`}
${summary?.connectedAt === undefined ? '' : html`<dt>Connected</dt><dd data-field="connected-at">${when(summary.connectedAt)}</dd>`}
${summary === undefined || summary.state === 'not-connected' ? '' : html`<dt>Last used</dt><dd data-field="last-used">${summary.lastUsedAt === undefined ? 'not yet' : when(summary.lastUsedAt)}</dd>`}
</dl>
${state === 'connected' ? '' : html`<p><a href="${connectFormPath(server)}?form_token=${row.connectToken}" aria-label="${state === 'needs-reconnect' ? 'Reconnect' : 'Connect'} ${server}">${state === 'needs-reconnect' ? 'Reconnect' : 'Connect'}</a></p>`}
${state === 'connected' || state === 'needs-reconnect' ? button(disconnectFormPath(server), row.disconnectToken, 'Disconnect', server) : ''}
</section>`;
}

function button(action: string, token: string, label: string, server: string): ReturnType<typeof html> {
  return html`<form method="post" action="${action}"><input type="hidden" name="form_token" value="${token}"><button type="submit" aria-label="${label} ${server}">${label}</button></form>`;
}

/** Minute precision, UTC: what the person needs, and no clock of theirs to guess without script. */
function when(epochMs: number): ReturnType<typeof html> {
  const iso = new Date(epochMs).toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

export function notDonePage(reason: string): RenderedPage {
  return page('Nothing was changed', html`<h1>Nothing was changed</h1>
<p>${reason}</p>
<p><a href="${CONNECTIONS_PATH}">Back to your connections</a></p>`);
}
