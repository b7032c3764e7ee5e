// The status page's stylesheet and script, inline in the page under a per-response CSP nonce: no
// build step, no files to serve, nothing fetched from elsewhere. The script polls the page's live
// sections (`/status?live=1`, rendered by the server like the page itself, so escaping happens in
// one place) and swaps them in; runs the action buttons and the policy preview through the JSON
// API; and writes what upstreams said only through textContent.

export const PAGE_STYLE = `
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #57606a; --bg: #fff; --panel: #f6f8fa; --line: #d0d7de;
  --ok: #1a7f37; --warn: #9a6700; --bad: #cf222e; --accent: #0969da; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #8d96a0; --bg: #0d1117; --panel: #161b22; --line: #30363d;
  --ok: #3fb950; --warn: #d29922; --bad: #f85149; --accent: #4493f8; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header { position: sticky; top: 0; z-index: 1; display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center;
  padding: .6rem 1rem; background: var(--panel); border-bottom: 1px solid var(--line); }
header h1 { font-size: 1.1rem; margin: 0; }
header .signed-in { display: flex; gap: .5rem; align-items: center; margin: 0 0 0 auto; }
nav { display: flex; flex-wrap: wrap; gap: .25rem .75rem; font-size: .9rem; }
nav a, a { color: var(--accent); text-decoration: none; }
main { padding: 0 1rem 2rem; max-width: 1400px; margin: 0 auto; }
section { margin-top: 1.25rem; }
h2 { font-size: 1rem; margin: 0 0 .5rem; padding-bottom: .25rem; border-bottom: 1px solid var(--line); }
h3 { font-size: .95rem; margin: .75rem 0 .25rem; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(9.5rem, 1fr)); gap: .5rem; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; }
.card .value { font-size: 1.35rem; font-weight: 600; font-variant-numeric: tabular-nums; }
.card .label { color: var(--muted); font-size: .8rem; }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; border: 1px solid var(--line); border-radius: 6px; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--panel); font-weight: 600; white-space: nowrap; }
tr:last-child td { border-bottom: 0; }
td.num, th.num { text-align: right; white-space: nowrap; }
.badge { display: inline-block; padding: 0 .45rem; border-radius: 999px; font-size: .8rem; font-weight: 600; border: 1px solid currentColor; white-space: nowrap; }
.ok { color: var(--ok); } .warn { color: var(--warn); } .bad { color: var(--bad); } .muted { color: var(--muted); }
.error { color: var(--bad); max-width: 28rem; overflow-wrap: anywhere; }
td.per-session { text-align: center; }
/* At a desktop's width the last error gets room to read as words, not a column of fragments. */
@media (min-width: 1100px) { td.error { min-width: 12rem; } }
code, pre { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .75rem; overflow: auto; max-height: 32rem; }
button { font: inherit; padding: .2rem .7rem; border-radius: 6px; border: 1px solid var(--line); background: var(--bg); color: var(--fg); cursor: pointer; }
button:hover { border-color: var(--accent); } button:disabled { opacity: .5; cursor: wait; }
button.danger { color: var(--bad); }
details { margin: .35rem 0; } summary { cursor: pointer; }
.desc { color: var(--muted); max-width: 40rem; overflow-wrap: anywhere; }
form { display: grid; gap: .5rem; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); align-items: end; }
label { display: grid; gap: .15rem; font-size: .85rem; color: var(--muted); }
input, textarea, select { font: inherit; padding: .3rem .45rem; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); width: 100%; }
textarea { min-height: 2.2rem; font-family: ui-monospace, monospace; font-size: 12px; }
#live-indicator { font-size: .8rem; color: var(--muted); }
#live-indicator[data-state="stale"] { color: var(--bad); }
#message { min-height: 1.2rem; font-size: .9rem; }
#message[data-state="ok"] { color: var(--ok); } #message[data-state="error"] { color: var(--bad); }
svg.spark { width: 100px; height: 24px; vertical-align: middle; }
svg.spark polyline { fill: none; stroke: var(--accent); stroke-width: 1.5; }
.actions { display: flex; gap: .5rem; flex-wrap: wrap; margin-left: auto; }
ul.names { margin: .25rem 0; padding-left: 1.2rem; columns: 16rem auto; }
/* A name longer than its column (64 characters, a long URI) wraps inside it rather than running into the next. */
ul.names li { break-inside: avoid; overflow-wrap: anywhere; }
@media (max-width: 600px) {
  body { font-size: 13px; } th, td { padding: .3rem .4rem; } .hide-narrow { display: none; } header { position: static; }
  .card .value { font-size: 1.1rem; }
  /* A phone stacks each upstream into a card of label: value lines. */
  table.stack thead { display: none; }
  table.stack tr { display: block; border-bottom: 1px solid var(--line); padding: .25rem 0; }
  table.stack tr:last-child { border-bottom: 0; }
  table.stack td { display: flex; gap: .75rem; justify-content: space-between; border: 0; padding: .15rem .6rem; text-align: right; }
  table.stack td::before { content: attr(data-label); color: var(--muted); text-align: left; flex: none; }
  table.stack td:empty, table.stack td[data-label=""]:not(:has(button)) { display: none; }
  table.stack td.error { max-width: none; }
}
`;

export const PAGE_SCRIPT = `
(() => {
  'use strict';
  const REFRESH_MS = 3000;
  const indicator = document.getElementById('live-indicator');
  const message = document.getElementById('message');
  let busy = false;

  function say(text, ok) {
    message.textContent = text;
    message.dataset.state = ok ? 'ok' : 'error';
  }

  async function refresh() {
    if (busy) return;
    busy = true;
    try {
      const response = await fetch(location.pathname + '?live=1', { cache: 'no-store', headers: { accept: 'text/html' } });
      // A session cookie that expired (sign-in mode): reloading the page sends the person to sign in.
      if (response.status === 401) { location.reload(); return; }
      if (!response.ok) throw new Error('HTTP ' + response.status);
      const fresh = new DOMParser().parseFromString(await response.text(), 'text/html');
      for (const section of fresh.querySelectorAll('[data-live]')) {
        const current = document.getElementById(section.id);
        if (current) current.replaceWith(document.importNode(section, true));
      }
      indicator.textContent = 'live, updated ' + new Date().toLocaleTimeString();
      indicator.dataset.state = 'ok';
    } catch (error) {
      indicator.textContent = 'stale: ' + (error && error.message ? error.message : String(error));
      indicator.dataset.state = 'stale';
    } finally {
      busy = false;
    }
  }
  setInterval(() => { if (!document.hidden) void refresh(); }, REFRESH_MS);

  async function callApi(method, path, body) {
    const response = await fetch(path, {
      method,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error((answer.error && answer.error.message) || 'HTTP ' + response.status);
    return answer;
  }

  const ACTIONS = {
    restart: (target) => ({
      ask: 'Restart the connection to "' + target + '"? Calls in flight to it fail.',
      run: () => callApi('POST', '/api/upstreams/' + encodeURIComponent(target) + '/restart', {}),
      done: (answer) => 'Restarted "' + target + '": ' + answer.upstream.state + (answer.upstream.lastError ? ' (' + answer.upstream.lastError + ')' : ''),
    }),
    reload: () => ({
      ask: 'Reload the config file now?',
      run: () => callApi('POST', '/api/reload', {}),
      done: (answer) => 'Config reloaded: added [' + answer.added.join(', ') + '], removed [' + answer.removed.join(', ') + '], changed [' + answer.changed.join(', ') + ']' +
        (answer.restartOnly.length ? '; needs a restart: ' + answer.restartOnly.join(', ') : ''),
    }),
    drain: () => ({
      ask: 'Drain this replica? /readyz answers 503 and new sessions and streams are refused until you resume.',
      run: () => callApi('POST', '/api/drain', {}),
      done: () => 'Draining: this replica takes no new sessions or streams.',
    }),
    resume: () => ({
      ask: 'Take new sessions and streams again?',
      run: () => callApi('DELETE', '/api/drain'),
      done: () => 'Resumed: this replica takes new work again.',
    }),
  };

  document.addEventListener('click', async (event) => {
    const button = event.target instanceof Element ? event.target.closest('button[data-action]') : null;
    if (!button || !(button.dataset.action in ACTIONS)) return;
    const action = ACTIONS[button.dataset.action](button.dataset.target || '');
    if (!window.confirm(action.ask)) return;
    button.disabled = true;
    say('Working...', true);
    try {
      say(action.done(await action.run()), true);
    } catch (error) {
      say(error.message, false);
    } finally {
      button.disabled = false;
      void refresh();
    }
  });

  const form = document.getElementById('preview-form');
  const result = document.getElementById('preview-result');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const sub = String(data.get('sub') || '').trim();
    let claims = {};
    const claimsText = String(data.get('claims') || '').trim();
    try {
      if (claimsText) claims = JSON.parse(claimsText);
    } catch (error) {
      result.replaceChildren(line('Claims must be a JSON object: ' + error.message, 'error'));
      return;
    }
    const scopes = String(data.get('scopes') || '').split(/[\\s,]+/).filter(Boolean);
    const body = { principal: sub ? { sub, scopes, claims } : null };
    const endpoint = String(data.get('endpoint') || '');
    if (endpoint) body.endpoint = endpoint;
    try {
      render(await callApi('POST', '/api/catalog/preview', body));
    } catch (error) {
      result.replaceChildren(line(error.message, 'error'));
    }
  });

  function line(text, className) {
    const element = document.createElement('p');
    element.textContent = text;
    if (className) element.className = className;
    return element;
  }

  function render(preview) {
    const who = preview.principal ? preview.principal.sub : 'the anonymous caller';
    const nodes = [line((preview.policy ? 'Policy applied' : 'No policy: everything is shown') + ' for ' + who + ' at endpoint ' + preview.endpoint +
      '. Hidden: ' + preview.hidden.tools + ' tools, ' + preview.hidden.prompts + ' prompts, ' + preview.hidden.resources + ' resources, ' +
      preview.hidden.resourceTemplates + ' templates.')];
    if (preview.servers.length === 0) nodes.push(line('Nothing is shown.', 'muted'));
    for (const server of preview.servers) {
      const heading = document.createElement('h3');
      heading.textContent = server.name;
      nodes.push(heading);
      for (const kind of ['tools', 'prompts', 'resources', 'resourceTemplates']) {
        if (server[kind].length === 0) continue;
        const label = line(kind + ' (' + server[kind].length + ')', 'muted');
        const list = document.createElement('ul');
        list.className = 'names';
        for (const name of server[kind]) {
          const item = document.createElement('li');
          const code = document.createElement('code');
          code.textContent = name;
          code.title = name;
          item.append(code);
          list.append(item);
        }
        nodes.push(label, list);
      }
    }
    result.replaceChildren(...nodes);
    result.dataset.loaded = 'true';
  }
})();
`;
