// Where the status page's sign-in comes back to, and how its code is exchanged: on the MCP port
// (admin.onServerPort) the page is on the gateway's public origin; on a listener of its own behind
// a public URL this process cannot reach (a pod behind an ingress: here a TLS front for a made-up
// name), the browser reaches the public name while the code is exchanged at the gateway's local
// address. Chromium resolves the name to 127.0.0.1 (--host-resolver-rules); Node cannot resolve it
// at all, so a code exchange by the public URL would fail.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { startTlsFront } from '../support/tls-front.js';
import { skipWithout } from '../support/required-tools.js';
import { signInAtIdp, startStatusPageIdp, type StatusPageIdp } from '../support/status-page-idp.js';

const CHROMIUM = '/usr/bin/chromium';
const PUBLIC_HOST = 'switchboard.test';
const hasChromium = existsSync(CHROMIUM);

describe.skipIf(skipWithout(hasChromium, CHROMIUM))('where the status page signs people in', () => {
  let browser: Browser;
  const stops: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', `--host-resolver-rules=MAP ${PUBLIC_HOST} 127.0.0.1`] });
  });

  afterAll(async () => {
    await browser?.close();
    for (const stop of stops.reverse()) await stop();
  });

  async function gatewayWith(origin: string, port: number, admin: Record<string, unknown>): Promise<{ gateway: TestGateway; idp: StatusPageIdp }> {
    const idp = await startStatusPageIdp({ people: { alice: ['admins'] }, redirectUri: `${origin}/oauth/callback` });
    stops.push(() => idp.stop());
    const gateway = await startGateway({
      server: { port, publicUrl: `${origin}/mcp` },
      auth: {
        signIn: {
          provider: { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret },
          secret: randomBytes(32).toString('base64'),
          scopeGrants: { 'switchboard:admin': { groups: ['admins'] } },
        },
      },
      admin,
      mcpServers: {},
    });
    stops.push(() => gateway.close());
    return { gateway, idp };
  }

  it('on the MCP port: the page, its sign-in and its callback are on the public origin, beside the MCP endpoint', async () => {
    const port = await freePort();
    const { gateway, idp } = await gatewayWith(`http://127.0.0.1:${port}`, port, { onServerPort: true });
    const statusUrl = gateway.adminUrl!;
    expect(new URL(statusUrl).origin).toBe(new URL(gateway.url).origin);
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(statusUrl);
      await signInAtIdp(page, idp, 'alice');
      await page.waitForURL(statusUrl);
      expect(await page.locator('header .signed-in').textContent()).toContain('alice@example.com');
      // The MCP endpoint is not opened by the cookie: it takes bearer tokens only.
      const mcp = await context.request.post(gateway.url, { data: { jsonrpc: '2.0', id: 1, method: 'ping' }, headers: { accept: 'application/json, text/event-stream' } });
      expect(mcp.status()).toBe(401);
    } finally {
      await context.close();
    }
  });

  it('behind a public name this process cannot resolve: the browser signs in there, the code is exchanged locally', async () => {
    const port = await freePort();
    const front = await startTlsFront(PUBLIC_HOST, () => port);
    stops.push(() => front.stop());
    const publicOrigin = `https://${PUBLIC_HOST}:${front.port}`;
    const { gateway, idp } = await gatewayWith(publicOrigin, port, {});
    const statusUrl = gateway.adminUrl!;
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    try {
      const page = await context.newPage();
      const visited: string[] = [];
      page.on('request', (request) => visited.push(request.url()));
      await page.goto(statusUrl);
      await signInAtIdp(page, idp, 'alice');
      await page.waitForURL(statusUrl);
      expect(await page.locator('header .signed-in').textContent()).toContain('alice@example.com');
      expect(visited.some((url) => url.startsWith(`${publicOrigin}/oauth/authorize`))).toBe(true);
      expect(gateway.logs).toContainEqual(expect.objectContaining({ audit: true, event: 'admin', action: 'sign-in', outcome: 'ok', sub: 'alice' }));
    } finally {
      await context.close();
    }
  });
});
