// The status page in a real headless browser (Debian's Chromium, driven by playwright-core) against
// a real gateway with an upstream that is down, a pinned tool whose live definition differs from
// its pin, a policy, and live traffic from the official client while the page is open: every
// section renders, live values change without a reload, upstream text is shown as text (never as
// markup), the policy preview and an action work from the page, and the page stays within a
// phone's width. Screenshots go to test-results/ (git-ignored).
import { skipWithout } from '../support/required-tools.js';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { lockFromLists, renderLockFile } from '../../src/pinning/lock-file.js';
import { freePort } from '../support/free-port.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { connectV2, type TestClient } from '../support/mcp-clients.js';
import { everythingStdio, stdioFixture } from '../support/upstreams.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = fileURLToPath(new URL('../../test-results/', import.meta.url));
/** A tool description an upstream wrote to attack whoever shows it: it must come out as text. */
const HOSTILE = '<img src=x onerror=alert(document.domain)><script>alert(1)</script> Reports the weather.';
const POLL = { timeout: 20_000, interval: 200 };

interface StatusBody {
  upstreams: {
    name: string;
    state: string;
    lastError: string | null;
    pinning: { withheld: string[] } | null;
    counts: { tools: number; resources: number; resourceTemplates: number } | null;
  }[];
}

const hasChromium = existsSync(CHROMIUM);

describe.skipIf(skipWithout(hasChromium, CHROMIUM))(hasChromium ? 'the status page in Chromium' : `the status page in Chromium (skipped: ${CHROMIUM} is missing; apt-get install chromium)`, () => {
  let gateway: TestGateway;
  let browser: Browser;
  let client: TestClient;
  let traffic: Promise<void> | undefined;
  let trafficRunning = true;
  let calls = 0;
  const failures: string[] = [];
  let refusing: Server;

  beforeAll(async () => {
    // An upstream that refuses the gateway's credentials, whatever it is sent.
    refusing = createServer((request, response) => {
      request.resume();
      response.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token"' }).end();
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    const dir = await mkdtemp(join(tmpdir(), 'switchboard-status-page-'));
    const lockFile = join(dir, 'switchboard.lock.yaml');
    // The pin reviewed another echo tool: the live one differs, so it is withheld.
    await writeFile(lockFile, renderLockFile(lockFromLists([['shifting', [{ name: 'echo', description: 'Echoes the message (as reviewed)' }]]])));
    const closed = await freePort();
    gateway = await startGateway({
      pinning: { mode: 'enforce', lockFile, unpinnedTools: 'allow' },
      policy: {
        default: 'deny',
        rules: [
          { when: {}, allow: ['everything/echo', 'shifting/*'] },
          { when: { scopes: ['ops'] }, allow: ['*/*'] },
        ],
      },
      mcpServers: {
        everything: everythingStdio(),
        shifting: stdioFixture('shifting-server', { WEATHER_DESCRIPTION: HOSTILE }),
        down: { url: `http://127.0.0.1:${closed}/mcp` },
        // Tool names that fill all 64 characters, for the policy preview's layout.
        odd: stdioFixture('odd-names-server'),
        // No shared lists: each session lists it through its own connection.
        solo: { ...stdioFixture('twin-server', { TWIN_LABEL: 'solo' }), isolation: 'session' },
        locked: { url: `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/mcp` },
      },
    });
    client = await connectV2(gateway.url);
    await vi.waitFor(async () => {
      const { upstreams } = (await (await fetch(new URL('/api/status', gateway.adminUrl))).json()) as StatusBody;
      const byName = new Map(upstreams.map((upstream) => [upstream.name, upstream]));
      expect(byName.get('everything')?.state).toBe('ready');
      expect(byName.get('shifting')?.pinning?.withheld).toEqual(['echo']);
      expect(byName.get('down')?.lastError).toEqual(expect.any(String));
      expect(byName.get('odd')?.state).toBe('ready');
      expect(byName.get('locked')?.lastError).toEqual(expect.any(String));
    }, { timeout: 40_000, interval: 200 });
    // Live traffic while the page is open.
    traffic = (async () => {
      while (trafficRunning) {
        try {
          await client.request('tools/call', { name: 'everything__echo', arguments: { message: `call ${calls}` } });
          calls += 1;
        } catch (error) {
          failures.push(error instanceof Error ? error.message : String(error));
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    await mkdir(ARTIFACTS, { recursive: true });
  }, 90_000);

  afterAll(async () => {
    trafficRunning = false;
    await traffic;
    await browser?.close();
    await client?.close();
    await gateway?.close();
    refusing?.close();
  });

  async function openPage(options: Parameters<Browser['newPage']>[0] = {}): Promise<{ page: Page; navigations: () => number; alerts: string[] }> {
    const page = await browser.newPage(options);
    let navigations = 0;
    const alerts: string[] = [];
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations += 1;
    });
    // The page's own confirm() dialogs are accepted; anything else would be an injected script.
    page.on('dialog', (dialog) => {
      if (dialog.type() === 'confirm') void dialog.accept();
      else {
        alerts.push(`${dialog.type()}: ${dialog.message()}`);
        void dialog.dismiss();
      }
    });
    await page.goto(gateway.adminUrl!);
    return { page, navigations: () => navigations, alerts };
  }

  const cell = (page: Page, row: string, field: string) => page.locator(`${row} [data-field="${field}"]`).first();

  it('renders every section: upstreams with a down one and a pin mismatch, traffic, sessions, endpoints, catalogue, preview, config', async () => {
    const { page, alerts } = await openPage({ viewport: { width: 1280, height: 900 } });
    try {
      expect(await page.title()).toMatch(/^Switchboard on /);
      const headings = await page.locator('h2').allTextContents();
      for (const section of ['Upstreams', 'Traffic', 'Sessions and listens', 'Endpoints', 'Catalogue', 'Policy preview', 'Config in force']) {
        expect(headings.some((heading) => heading.startsWith(section)), section).toBe(true);
      }
      expect(await page.locator('#gateway-status').textContent()).toBe('ready');

      expect(await cell(page, 'tr[data-upstream="everything"]', 'state').textContent()).toBe('ready');
      expect(await cell(page, 'tr[data-upstream="everything"]', 'era').textContent()).toContain('2025');
      expect(Number(await cell(page, 'tr[data-upstream="everything"]', 'tools').textContent())).toBeGreaterThan(5);
      expect(await cell(page, 'tr[data-upstream="down"]', 'state').textContent()).toMatch(/^(failed|connecting)$/);
      // The row names the server; its last error names where it could not connect, and why.
      expect(await cell(page, 'tr[data-upstream="down"]', 'last-error').textContent()).toMatch(/^could not connect to http:\/\/127\.0\.0\.1:\d+\/mcp: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
      const pinning = await cell(page, 'tr[data-upstream="shifting"]', 'pinning').textContent();
      expect(pinning).toContain('mismatch');
      expect(pinning).toContain('echo');

      // Traffic is sampled every few seconds: the first sample may not be in yet.
      await expect.poll(async () => Number(await cell(page, 'tr[data-traffic="everything"]', 'total-requests').textContent()), POLL).toBeGreaterThan(0);
      expect(Number(await cell(page, '#sessions', 'sessions').textContent())).toBeGreaterThanOrEqual(1);
      expect(await page.locator('#endpoints').textContent()).toContain(gateway.url);
      expect(await page.locator('details[data-catalog="everything"]').textContent()).toContain('everything__echo');
      expect(await page.locator('tr[data-withheld="shifting__echo"]').count()).toBe(1);
      expect(await page.locator('#config pre').textContent()).toContain('"mcpServers"');

      await page.screenshot({ path: join(ARTIFACTS, 'status-page.png'), fullPage: true });
      expect(alerts).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('changes its live values while traffic runs, without reloading the page', async () => {
    const { page, navigations } = await openPage({ viewport: { width: 1280, height: 900 } });
    try {
      const total = cell(page, 'tr[data-traffic="everything"]', 'total-requests');
      const first = Number(await total.textContent());
      const before = calls;
      await expect.poll(async () => Number(await total.textContent()), POLL).toBeGreaterThan(first);
      expect(calls).toBeGreaterThan(before);
      await expect.poll(async () => Number(await cell(page, 'tr[data-traffic="everything"]', 'rate').textContent()), POLL).toBeGreaterThan(0);
      expect(await page.locator('#live-indicator').textContent()).toMatch(/^live, updated /);
      expect(navigations()).toBe(1);
      expect(failures).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('shows what an upstream wrote as text, never as markup', async () => {
    const { page, alerts } = await openPage();
    try {
      const shifting = page.locator('details[data-catalog="shifting"]');
      await shifting.locator('summary').click();
      expect(await shifting.textContent()).toContain(HOSTILE);
      expect(await page.locator('main img, main script').count()).toBe(0);
      expect(alerts).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('previews what a principal is shown, by the policy in force', async () => {
    const { page } = await openPage();
    try {
      const result = page.locator('#preview-result');
      await page.fill('input[name="sub"]', 'alice');
      await page.fill('input[name="scopes"]', 'ops');
      await page.click('#preview-form button[type="submit"]');
      await expect.poll(() => result.textContent(), POLL).toContain('everything__get-env');
      expect(await result.textContent()).toContain('alice');

      await page.fill('input[name="sub"]', '');
      await page.click('#preview-form button[type="submit"]');
      await expect.poll(() => result.textContent(), POLL).toContain('the anonymous caller');
      const anonymous = await result.textContent();
      expect(anonymous).toContain('everything__echo');
      expect(anonymous).not.toContain('everything__get-env');
    } finally {
      await page.close();
    }
  }, 60_000);

  it('restarts an upstream from its row, and the row shows it', async () => {
    const { page } = await openPage();
    try {
      await page.click('tr[data-upstream="shifting"] button[data-action="restart"]');
      await expect.poll(() => page.locator('#message').textContent(), POLL).toContain('Restarted "shifting": ready');
      await expect.poll(() => cell(page, 'tr[data-upstream="shifting"]', 'restarts').textContent(), POLL).toBe('1');
      expect(gateway.logs).toContainEqual(expect.objectContaining({ audit: true, event: 'admin', action: 'restart', target: 'shifting', outcome: 'ok' }));
    } finally {
      await page.close();
    }
  }, 60_000);

  it('counts resources and templates apart, and shows a per-session server as per session, not as empty', async () => {
    const { page } = await openPage({ viewport: { width: 1280, height: 900 } });
    try {
      await page.locator('#upstreams').screenshot({ path: join(ARTIFACTS, 'status-page-upstreams.png') });
      const { upstreams } = (await (await fetch(new URL('/api/status', gateway.adminUrl))).json()) as StatusBody;
      const everything = upstreams.find((upstream) => upstream.name === 'everything')!.counts!;
      expect(everything.resourceTemplates).toBeGreaterThan(0);
      expect(Number(await cell(page, 'tr[data-upstream="everything"]', 'resources').textContent())).toBe(everything.resources);
      expect(Number(await cell(page, 'tr[data-upstream="everything"]', 'templates').textContent())).toBe(everything.resourceTemplates);

      expect(await cell(page, 'tr[data-upstream="solo"]', 'state').textContent()).toBe('per-session');
      expect(await cell(page, 'tr[data-upstream="solo"]', 'counts').textContent()).toBe('per session');
      expect(await page.locator('tr[data-upstream="solo"] [data-field="tools"]').count()).toBe(0);
      const summary = await page.locator('details[data-catalog="solo"] summary').textContent();
      expect(summary).toContain('per session');
      expect(summary).not.toMatch(/\b0 tools\b/);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('shows a last error without the server name its row already shows', async () => {
    const { page } = await openPage();
    try {
      expect(await cell(page, 'tr[data-upstream="locked"]', 'last-error').textContent()).toBe("refused the gateway's credentials (401 invalid_token)");
    } finally {
      await page.close();
    }
  }, 60_000);

  it('keeps long tool names inside their column in the policy preview, each in full', async () => {
    const { page } = await openPage({ viewport: { width: 1280, height: 900 } });
    try {
      const result = page.locator('#preview-result');
      await page.fill('input[name="sub"]', 'alice');
      await page.fill('input[name="scopes"]', 'ops');
      await page.click('#preview-form button[type="submit"]');
      await expect.poll(() => result.textContent(), POLL).toContain('odd__names_that_share');
      await result.screenshot({ path: join(ARTIFACTS, 'status-page-preview.png') });
      // Every name's box ends inside its list item: none runs into the next column.
      const overflowing = await page.evaluate(`[...document.querySelectorAll('#preview-result ul.names li')]
        .filter((item) => item.querySelector('code').getBoundingClientRect().right > item.getBoundingClientRect().right + 0.5)
        .map((item) => item.textContent)`);
      expect(overflowing).toEqual([]);
      const longest = page.locator('#preview-result code', { hasText: 'odd__a_valid_but_long_name_' }).first();
      expect(await longest.getAttribute('title')).toBe(await longest.textContent());
    } finally {
      await page.close();
    }
  }, 60_000);

  it('fits a phone screen: no sideways scrolling of the page, tables scroll in their own boxes', async () => {
    const { page } = await openPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    try {
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      expect(await cell(page, 'tr[data-upstream="everything"]', 'state').isVisible()).toBe(true);
      await page.screenshot({ path: join(ARTIFACTS, 'status-page-phone.png'), fullPage: true });
      await page.locator('#upstreams').screenshot({ path: join(ARTIFACTS, 'status-page-phone-upstreams.png') });
    } finally {
      await page.close();
    }
  }, 60_000);
});
