// The connections pages a person sees after a connect link: connected, or why not. The same small,
// script-free pages as the sign-in ones (admin/sign-in-pages.ts), every value escaped.
import { html } from 'hono/html';
import { page, type RenderedPage } from '../sign-in/page-shell.js';

export function connectedPage(server: string): RenderedPage {
  return page(
    `Connected to ${server}`,
    html`<h1>Your account on ${server} is connected</h1>
<p>Go back to your MCP client and ask again: the gateway now reaches ${server} as you.</p>
<p class="note">You can close this window, or see <a href="/connections">all your connections</a>.</p>`,
  );
}

export function connectRefusedPage(reason: string): RenderedPage {
  return page('Not connected', html`<h1>Not connected</h1>
<p>${reason}</p>`);
}
