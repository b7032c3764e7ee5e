// The status page, rendered on the server with hono/html: every value interpolated into the
// template is escaped (tool names, descriptions and errors come from upstreams, which are not
// trusted), and the page's CSP allows only its own inline style and script (by nonce). Sections
// marked data-live are re-rendered with `?live=1` and swapped in by the page script.
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { ServerCatalog } from '../../admin/catalog.js';
import type { AdminStatus, UpstreamEntry } from '../../admin/status.js';
import type { ServerTraffic } from '../../observe/recent-rates.js';
import { PAGE_SCRIPT, PAGE_STYLE } from './page-assets.js';
import type { AdminSession } from './session-cookie.js';
import { personLabel } from './sign-in-pages.js';
import { SIGN_OUT_PATH } from './status-client.js';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

export interface PageData {
  readonly status: AdminStatus;
  readonly catalog: readonly ServerCatalog[];
  /** The redacted config in force, as JSON text. */
  readonly configJson: string;
  readonly endpointNames: readonly string[];
  readonly canReload: boolean;
  readonly nonce: string;
  /** Sign-in mode: the person whose session cookie opened the page (a sign-out button goes with it). */
  readonly signedIn?: AdminSession;
}

/** The whole page; `live` only the sections the page script refreshes. */
export function renderPage(data: PageData, live = false): Html {
  const { status } = data;
  const title = `Switchboard on ${status.gateway.host}`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title}</title>
<style nonce="${data.nonce}">${raw(PAGE_STYLE)}</style>
</head>
<body>
<header>
  <h1>Switchboard <span class="muted">${status.gateway.version}</span></h1>
  ${gatewayBadge(status)}
  <span id="live-indicator" data-state="ok">live</span>
  <nav aria-label="Sections">
    <a href="#upstreams">Upstreams</a><a href="#traffic">Traffic</a><a href="#sessions">Sessions</a><a href="#endpoints">Endpoints</a><a href="#catalog">Catalogue</a><a href="#preview">Policy preview</a><a href="#config">Config</a>
  </nav>
  <div class="actions" id="header-actions" data-live>
    ${data.canReload ? html`<button type="button" data-action="reload">Reload config</button>` : ''}
    ${status.gateway.status === 'draining'
      ? html`<button type="button" data-action="resume">Resume</button>`
      : html`<button type="button" class="danger" data-action="drain">Drain</button>`}
  </div>
  ${data.signedIn && !live
    ? html`<form class="signed-in" method="post" action="${SIGN_OUT_PATH}"><span class="muted">Signed in as ${personLabel(data.signedIn)}</span> <button type="submit">Sign out</button></form>`
    : ''}
</header>
<main>
<p id="message" role="status" aria-live="polite"></p>
${overview(status)}
${upstreamsSection(status)}
${trafficSection(status)}
${sessionsSection(status)}
${connectionsSection(status)}
${live ? '' : endpointsSection(status)}
${live ? '' : catalogSection(data.catalog)}
${live ? '' : previewSection(data.endpointNames, status.gateway.policy)}
${live ? '' : configSection(data.configJson)}
</main>
${live ? '' : html`<script nonce="${data.nonce}">${raw(PAGE_SCRIPT)}</script>`}
</body>
</html>`;
}

function gatewayBadge(status: AdminStatus): Html {
  const draining = status.gateway.status === 'draining';
  return html`<span id="gateway-status" data-live class="badge ${draining ? 'warn' : 'ok'}" data-field="gateway-status">${status.gateway.status}</span>`;
}

function overview(status: AdminStatus): Html {
  const shared = status.upstreams.filter((upstream) => upstream.enabled && upstream.isolation === 'shared');
  const ready = shared.filter((upstream) => upstream.state === 'ready').length;
  const totalRate = [...status.upstreams.map((upstream) => upstream.traffic), status.traffic.gateway].reduce(
    (sum, traffic) => sum + (traffic?.recent.ratePerSecond ?? 0),
    0,
  );
  return html`<section id="overview" data-live aria-label="Overview">
  <div class="cards">
    ${card('Upstreams ready', `${ready} / ${shared.length}`, 'upstreams-ready', ready < shared.length ? 'bad' : 'ok')}
    ${card('Sessions', status.sessions.active === null ? 'n/a' : String(status.sessions.active), 'sessions-active')}
    ${card('Requests / s', formatRate(totalRate), 'requests-rate')}
    ${card('Uptime', formatDuration(status.gateway.uptimeSeconds), 'uptime')}
    ${card('Store', status.sessions.store, 'store')}
    ${card('Host', `${status.gateway.host} (pid ${status.gateway.pid})`, 'host')}
  </div>
</section>`;
}

function card(label: string, value: string, field: string, tone = ''): Html {
  return html`<div class="card"><div class="value ${tone}" data-field="${field}">${value}</div><div class="label">${label}</div></div>`;
}

function upstreamsSection(status: AdminStatus): Html {
  return html`<section id="upstreams" data-live>
  <h2>Upstreams</h2>
  <div class="scroll"><table class="stack">
    <thead><tr><th>Server</th><th>State</th><th>Era</th><th>Transport</th><th class="num">Restarts</th><th class="num">Tools</th><th class="num">Prompts</th><th class="num">Resources</th><th class="num">Templates</th><th>Pinning</th><th>Last error</th><th></th></tr></thead>
    <tbody>${status.upstreams.map(upstreamRow)}</tbody>
  </table></div>
</section>`;
}

function upstreamRow(upstream: UpstreamEntry): Html {
  const restartable = upstream.enabled && upstream.isolation === 'shared';
  // data-label: the column's name, shown beside each value when a phone stacks the row (page-assets.ts).
  return html`<tr data-upstream="${upstream.name}">
  <td data-label="Server"><span><strong>${upstream.name}</strong>${upstream.serverInfo ? html`<br><span class="muted">${upstream.serverInfo.name} ${upstream.serverInfo.version}</span>` : ''}</span></td>
  <td data-label="State"><span><span class="badge ${stateTone(upstream.state)}" data-field="state">${upstream.state}</span>${upstream.since ? html` <span class="muted" title="${upstream.since}">${sinceText(upstream.since)}</span>` : ''}</span></td>
  <td data-label="Era" data-field="era"><span>${upstream.era === null ? '-' : upstream.era === 'modern' ? '2026' : '2025'}${upstream.protocolVersion ? html` <span class="muted">${upstream.protocolVersion}</span>` : ''}</span></td>
  <td data-label="Transport" data-field="transport">${upstream.transport ?? upstream.kind}</td>
  <td data-label="Restarts" class="num" data-field="restarts">${upstream.restarts}</td>
  ${countCells(upstream)}
  <td data-label="Pinning" data-field="pinning"><span>${pinningCell(upstream)}</span></td>
  <td data-label="Last error" class="error" data-field="last-error">${upstream.lastError ?? ''}</td>
  <td data-label="">${restartable ? html`<button type="button" data-action="restart" data-target="${upstream.name}">Restart</button>` : ''}</td>
</tr>`;
}

/**
 * What its shared lists hold. A session-isolated server has none (each session lists it through its
 * own connection), which is not the same as listing nothing: one cell across the four says so.
 */
function countCells(upstream: UpstreamEntry): Html {
  const { counts } = upstream;
  if (counts === null && upstream.enabled && upstream.isolation === 'session') {
    return html`<td data-label="Lists" colspan="4" class="muted per-session" data-field="counts" title="Each session lists this server through its own connection">per session</td>`;
  }
  const count = (value: number | undefined) => (value === undefined ? '-' : String(value));
  return html`<td data-label="Tools" class="num" data-field="tools">${count(counts?.tools)}</td>
  <td data-label="Prompts" class="num" data-field="prompts">${count(counts?.prompts)}</td>
  <td data-label="Resources" class="num" data-field="resources">${count(counts?.resources)}</td>
  <td data-label="Templates" class="num" data-field="templates">${count(counts?.resourceTemplates)}</td>`;
}

function pinningCell(upstream: UpstreamEntry): Html | string {
  const pins = upstream.pinning;
  if (!pins) return html`<span class="muted">-</span>`;
  const problems = [
    pins.withheld.length > 0 ? `${pins.withheld.length} withheld` : '',
    pins.changed.length > 0 ? `${pins.changed.length} changed` : '',
    pins.missing.length > 0 ? `${pins.missing.length} missing` : '',
    pins.unpinned.length > 0 ? `${pins.unpinned.length} unpinned` : '',
    pins.inLock ? '' : 'not in the lock file',
  ].filter(Boolean);
  if (problems.length === 0) return html`<span class="badge ok">pinned</span>`;
  if (!pins.inLock) return html`<span class="badge warn">not pinned</span> not in the lock file`;
  // Changed or missing pins are a mismatch; tools without a pin only a warning (withheld or not, by unpinnedTools).
  const mismatch = pins.changed.length > 0 || pins.missing.length > 0;
  const names = [...new Set([...pins.changed, ...pins.missing, ...pins.withheld, ...pins.unpinned])];
  return html`<span class="badge ${mismatch ? 'bad' : 'warn'}">${mismatch ? 'mismatch' : 'unpinned'}</span> ${problems.join(', ')}${names.length > 0 ? html`<br><code class="muted">${names.slice(0, 5).join(', ')}${names.length > 5 ? ', ...' : ''}</code>` : ''}`;
}

function trafficSection(status: AdminStatus): Html {
  const rows: { name: string; traffic: ServerTraffic | null }[] = [
    ...status.upstreams.filter((upstream) => upstream.enabled).map((upstream) => ({ name: upstream.name, traffic: upstream.traffic })),
    { name: '(gateway)', traffic: status.traffic.gateway },
  ];
  return html`<section id="traffic" data-live>
  <h2>Traffic <span class="muted">(last ${formatDuration(status.traffic.windowSeconds)}, from the gateway's metrics, sampled every ${status.traffic.intervalSeconds} s)</span></h2>
  <div class="scroll"><table>
    <thead><tr><th>Server</th><th class="num">Req/s</th><th class="num">Requests</th><th class="num">Errors</th><th class="num">p50</th><th class="num">p95</th><th class="num hide-narrow">Total</th><th class="hide-narrow">Requests per ${status.traffic.intervalSeconds} s</th></tr></thead>
    <tbody>${rows.map(({ name, traffic }) => trafficRow(name, traffic))}</tbody>
  </table></div>
  <p class="muted">(gateway): requests the gateway answered alone (merged lists, ping, unknown names).</p>
</section>`;
}

function trafficRow(name: string, traffic: ServerTraffic | null): Html {
  const recent = traffic?.recent;
  const ratio = recent?.errorRatio ?? null;
  return html`<tr data-traffic="${name}">
  <td>${name}</td>
  <td class="num" data-field="rate">${recent ? formatRate(recent.ratePerSecond) : '0'}</td>
  <td class="num" data-field="recent-requests">${recent ? recent.requests : 0}</td>
  <td class="num ${ratio !== null && ratio > 0.05 ? 'bad' : ''}" data-field="error-ratio">${ratio === null ? '-' : `${(ratio * 100).toFixed(1)}%`}</td>
  <td class="num" data-field="p50">${formatMs(recent?.p50Ms ?? null)}</td>
  <td class="num" data-field="p95">${formatMs(recent?.p95Ms ?? null)}</td>
  <td class="num hide-narrow" data-field="total-requests">${traffic ? traffic.total.requests : 0}</td>
  <td class="hide-narrow">${sparkline(traffic?.series ?? [])}</td>
</tr>`;
}

/** Requests per interval as a small line: numbers only, so nothing from outside reaches the SVG. */
function sparkline(series: readonly number[]): Html {
  if (series.length < 2) return html`<span class="muted">-</span>`;
  const max = Math.max(...series, 1);
  const step = 100 / (series.length - 1);
  const points = series.map((value, index) => `${(index * step).toFixed(1)},${(22 - (value / max) * 20).toFixed(1)}`).join(' ');
  return html`<svg class="spark" viewBox="0 0 100 24" preserveAspectRatio="none" role="img" aria-label="requests per interval"><polyline points="${points}"/></svg>`;
}

function sessionsSection(status: AdminStatus): Html {
  const { sessions } = status;
  return html`<section id="sessions" data-live>
  <h2>Sessions and listens</h2>
  <div class="cards">
    ${card(sessions.store === 'redis' ? 'Sessions (all replicas)' : 'Sessions', sessions.active === null ? 'store not answering' : String(sessions.active), 'sessions', sessions.active === null ? 'bad' : '')}
    ${card('2026 listens (this replica)', String(sessions.listens), 'listens')}
    ${card('SSE streams (this replica)', String(sessions.sseStreams), 'sse-streams')}
  </div>
</section>`;
}

/** People's connections per server and state: counts only, never a token or who. */
function connectionsSection(status: AdminStatus): Html | string {
  const { connections } = status;
  if (connections !== null && connections.length === 0) return '';
  return html`<section id="connections" data-live>
  <h2>Connections <span class="muted">(people's own accounts on servers with <code>credentials.connection</code>, all replicas)</span></h2>
  ${connections === null
    ? html`<p class="bad">The store did not answer the count.</p>`
    : html`<div class="scroll"><table>
    <thead><tr><th>Server</th><th class="num">Connected</th><th class="num">Needs reconnecting</th></tr></thead>
    <tbody>${connections.map(
      (entry) => html`<tr data-connections="${entry.server}"><td>${entry.server}</td><td class="num" data-field="connected">${entry.connected}${entry.partial ? '+' : ''}</td><td class="num ${entry.needsReconnect > 0 ? 'warn' : ''}" data-field="needs-reconnect">${entry.needsReconnect}${entry.partial ? '+' : ''}</td></tr>`,
    )}</tbody>
  </table></div>`}
</section>`;
}

function endpointsSection(status: AdminStatus): Html {
  const { endpoints } = status;
  const rows: [string, string | null][] = [
    ['MCP', endpoints.mcp],
    ...Object.entries(endpoints.endpoints).map(([name, url]): [string, string] => [`Endpoint ${name}`, url]),
    ['Legacy SSE (2024-11-05)', endpoints.legacySse],
    ['Health', endpoints.health],
    ['Readiness', endpoints.readiness],
    ['Metrics', endpoints.metrics],
    ['Status page', endpoints.status],
  ];
  return html`<section id="endpoints">
  <h2>Endpoints</h2>
  <div class="scroll"><table><tbody>
    ${rows.map(([label, url]) => html`<tr><th>${label}</th><td><code>${url ?? 'off'}</code></td></tr>`)}
    <tr><th>Auth</th><td>${status.gateway.auth ? 'bearer tokens (auth)' : html`<span class="warn">none</span>`}; policy ${status.gateway.policy ? 'on' : 'off'}${status.pinning ? html`; pinning ${status.pinning.mode} (<code>${status.pinning.lockFile}</code>)` : ''}</td></tr>
  </tbody></table></div>
</section>`;
}

function catalogSection(catalog: readonly ServerCatalog[]): Html {
  return html`<section id="catalog">
  <h2>Catalogue <span class="muted">(what clients are offered, per server; as of page load)</span></h2>
  ${catalog.length === 0 ? html`<p class="muted">No servers are configured.</p>` : ''}
  ${catalog.map(serverCatalog)}
</section>`;
}

function serverCatalog(server: ServerCatalog): Html {
  const total = server.tools.length + server.prompts.length + server.resources.length + server.resourceTemplates.length;
  return html`<details data-catalog="${server.name}">
  <summary><strong>${server.name}</strong> <span class="muted">${server.isolation === 'session'
    ? 'per session'
    : `${server.tools.length} tools, ${server.prompts.length} prompts, ${server.resources.length} resources, ${server.resourceTemplates.length} templates${server.withheld.length > 0 ? `, ${server.withheld.length} withheld` : ''}`}</span></summary>
  ${server.isolation === 'session' ? html`<p class="muted">isolation: session: each session lists this server through its own connection.</p>` : ''}
  ${total === 0 && server.isolation === 'shared' ? html`<p class="muted">Nothing listed (the server is down, or lists nothing).</p>` : ''}
  ${namedTable('Tools', server.tools)}
  ${namedTable('Prompts', server.prompts)}
  ${server.resources.length > 0
    ? html`<h3>Resources</h3><div class="scroll"><table><thead><tr><th>URI (exposed)</th><th>Upstream URI</th><th>Name</th></tr></thead><tbody>${server.resources.map(
        (resource) => html`<tr><td><code>${resource.uri}</code></td><td><code>${resource.upstreamUri}</code></td><td>${resource.name ?? ''}</td></tr>`,
      )}</tbody></table></div>`
    : ''}
  ${server.resourceTemplates.length > 0
    ? html`<h3>Resource templates</h3><div class="scroll"><table><thead><tr><th>Template (exposed)</th><th>Upstream template</th></tr></thead><tbody>${server.resourceTemplates.map(
        (template) => html`<tr><td><code>${template.uriTemplate}</code></td><td><code>${template.upstreamUriTemplate}</code></td></tr>`,
      )}</tbody></table></div>`
    : ''}
  ${server.withheld.length > 0
    ? html`<h3 class="bad">Withheld by pinning</h3><div class="scroll"><table><thead><tr><th>Name</th><th>Upstream name</th><th>Reason</th></tr></thead><tbody>${server.withheld.map(
        (tool) => html`<tr data-withheld="${tool.name}"><td><code>${tool.name}</code></td><td><code>${tool.upstreamName}</code></td><td>${tool.reason}</td></tr>`,
      )}</tbody></table></div>`
    : ''}
</details>`;
}

function namedTable(title: string, items: ServerCatalog['tools']): Html | string {
  if (items.length === 0) return '';
  return html`<h3>${title}</h3><div class="scroll"><table><thead><tr><th>Name (exposed)</th><th>Upstream name</th><th>Description</th></tr></thead><tbody>${items.map(
    (item) => html`<tr><td><code>${item.name}</code></td><td><code>${item.upstreamName}</code></td><td class="desc">${truncate(item.description ?? item.title ?? '', 240)}</td></tr>`,
  )}</tbody></table></div>`;
}

function previewSection(endpointNames: readonly string[], policy: boolean): Html {
  return html`<section id="preview">
  <h2>Policy preview</h2>
  <p class="muted">${policy ? 'What a principal with these claims is shown, by the policy in force.' : 'No policy is configured: everyone is shown everything (the endpoint selection still applies).'} An empty subject is the caller without a token.</p>
  <form id="preview-form">
    <label>Subject (sub)<input name="sub" autocomplete="off" placeholder="alice"></label>
    <label>Scopes<input name="scopes" autocomplete="off" placeholder="mcp:read mcp:write"></label>
    <label>Claims (JSON)<textarea name="claims" rows="1" placeholder='{"groups": ["admins"]}'></textarea></label>
    <label>Endpoint<select name="endpoint"><option value="">default</option>${endpointNames.map((name) => html`<option value="${name}">${name}</option>`)}</select></label>
    <button type="submit">Show</button>
  </form>
  <div id="preview-result" aria-live="polite"></div>
</section>`;
}

function configSection(configJson: string): Html {
  return html`<section id="config">
  <h2>Config in force <span class="muted">(secrets redacted)</span></h2>
  <details><summary>Show</summary><pre>${configJson}</pre></details>
</section>`;
}

function stateTone(state: string): string {
  if (state === 'ready' || state === 'per-session') return 'ok';
  if (state === 'connecting' || state === 'disabled') return 'warn';
  return 'bad';
}

function sinceText(since: string): string {
  const seconds = Math.max(0, Math.floor((Date.now() - Date.parse(since)) / 1000));
  return `for ${formatDuration(seconds)}`;
}

export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
  return `${Math.floor(seconds / 86_400)} d ${Math.floor((seconds % 86_400) / 3600)} h`;
}

function formatRate(rate: number): string {
  if (rate === 0) return '0';
  return rate >= 10 ? rate.toFixed(0) : rate.toFixed(2);
}

function formatMs(ms: number | null): string {
  if (ms === null) return '-';
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 1 : 0)} ms`;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
