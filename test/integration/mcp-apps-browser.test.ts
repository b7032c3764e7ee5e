// MCP Apps in a real browser: a host page built on ext-apps' AppBridge and the official client
// (support/apps-host/), connected to the gateway, renders the apps of server-basic-vanillajs and
// server-system-monitor from the URIs their tools name; the system monitor's app polls its server
// by its own tool name (poll-system-stats) through the host and the gateway, and its view updates;
// the basic app's button calls get-time the same way. The same on an endpoint in search mode.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAppStdio, systemMonitorStdio } from '../support/app-servers.js';
import { startAppsHost, type AppsHost } from '../support/apps-host/apps-host.js';
import { launchBrowser, skipWithoutChromium } from '../support/browser.js';
import { startGateway, type TestGateway } from '../support/gateway.js';

const SEARCH = '/mcp/find';
const STEP_TIMEOUT_MS = 20_000;

describe.skipIf(skipWithoutChromium())('MCP Apps rendered by a browser host through the gateway', () => {
  let host: AppsHost;
  let gateway: TestGateway;
  let browser: Browser;

  beforeAll(async () => {
    host = await startAppsHost();
    gateway = await startGateway({
      server: { allowedOrigins: [host.origin] },
      mcpServers: { basic: basicAppStdio(), monitor: systemMonitorStdio() },
      endpoints: { find: { path: SEARCH, discovery: 'search' } },
    });
    browser = await launchBrowser();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await host?.close();
  });

  async function hostPage(): Promise<Page> {
    const page = await browser.newPage();
    page.on('pageerror', (error) => console.error('host page error:', error));
    await page.goto(host.url);
    await page.waitForFunction(() => (globalThis as unknown as { hostReady?: boolean }).hostReady === true);
    return page;
  }

  function render(page: Page, gatewayUrl: string, toolName: string, search = false): Promise<string> {
    return page.evaluate(
      ({ gatewayUrl, toolName, search }) =>
        (globalThis as unknown as { renderApp: (url: string, name: string, args: object, search: boolean) => Promise<string> }).renderApp(gatewayUrl, toolName, {}, search),
      { gatewayUrl, toolName, search },
    );
  }

  describe.each([
    ['listing its tools', '/mcp', false],
    ['in search mode', SEARCH, true],
  ] as const)('an endpoint %s', (_label, path, search) => {
    it("renders the basic app from the URI its tool names, and the app's own call of get-time answers", async () => {
      const page = await hostPage();
      try {
        expect(await render(page, new URL(path, gateway.url).toString(), 'basic__get-time', search)).toBe('ui://basic/get-time/mcp-app.html');
        const app = page.frameLocator('iframe[id="basic__get-time"]');
        const shown = app.locator('#server-time');
        await expect.poll(async () => shown.textContent(), { timeout: STEP_TIMEOUT_MS }).toMatch(/^\d{4}-\d{2}-\d{2}T/);
        const first = await shown.textContent();
        const timeCalls = () => gateway.logs.filter((line) => line.audit === true && line.server === 'basic' && line.name === 'get-time' && line.outcome === 'ok').length;
        const before = timeCalls();
        await new Promise((resolve) => setTimeout(resolve, 5));
        // The app calls its server's tool by the server's name, get-time, through the host.
        await app.locator('#get-time-btn').click();
        await expect.poll(async () => shown.textContent(), { timeout: STEP_TIMEOUT_MS }).not.toBe(first);
        expect(timeCalls()).toBe(before + 1);
      } finally {
        await page.close();
      }
    }, 60_000);

    it('renders the system monitor, whose polls of its own app-only tool answer and update its view', async () => {
      const page = await hostPage();
      try {
        expect(await render(page, new URL(path, gateway.url).toString(), 'monitor__get-system-info', search)).toBe('ui://monitor/system-monitor/mcp-app.html');
        const app = page.frameLocator('iframe[id="monitor__get-system-info"]');
        await expect.poll(async () => app.locator('#info-hostname').textContent(), { timeout: STEP_TIMEOUT_MS }).not.toMatch(/^\s*(-|)\s*$/);
        // Each poll shows the time it answered in the status line; two different ones: it keeps answering.
        const status = app.locator('#status-text');
        await expect.poll(async () => status.textContent(), { timeout: STEP_TIMEOUT_MS }).toMatch(/^\d{2}:\d{2}:\d{2}$/);
        const firstPoll = await status.textContent();
        await expect.poll(async () => status.textContent(), { timeout: STEP_TIMEOUT_MS }).not.toBe(firstPoll);
        expect(await app.locator('#memory-percent').textContent()).toMatch(/^\d+(\.\d+)?%$/);
        expect(gateway.logs).toContainEqual(expect.objectContaining({ audit: true, method: 'tools/call', server: 'monitor', name: 'poll-system-stats', outcome: 'ok' }));
      } finally {
        await page.close();
      }
    }, 60_000);
  });
});
