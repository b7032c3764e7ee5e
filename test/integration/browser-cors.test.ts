// A browser-based MCP client of 2026-07-28 in a real headless browser (Debian's Chromium, driven by
// playwright-core), on a page served from an origin the gateway allows and from one it does not.
// The browser itself makes the CORS preflights, as it would for any web client: for the protected
// resource metadata (the SDKs ask with MCP-Protocol-Version), and for a tools/call that carries a
// token, the mirrored Mcp-Method and Mcp-Name, and an Mcp-Param-* header that the tool declares
// (conformance-2026-server's test_custom_header mirrors `region`), on server.path and on an
// endpoint's path. A page on another origin is refused, and the refusal is audited.
import { skipWithout } from '../support/required-tools.js';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.js';
import { envelope, MODERN_VERSION } from '../support/modern-http.js';
import { stdioFixture } from '../support/upstreams.js';

const CHROMIUM = '/usr/bin/chromium';
const ORIGIN = 'https://mcp.switchboard.test';
const PUBLIC_URL = `${ORIGIN}/mcp`;
const ENDPOINT_PATH = '/mcp/web';
const TOOL = 'conf__test_custom_header';

const hasChromium = existsSync(CHROMIUM);

/** What the page's fetch came to: an answer, or the TypeError a browser gives when CORS forbids it. */
type Outcome = { status: number; body: string; contentType: string | null } | { error: string };

describe.skipIf(skipWithout(hasChromium, CHROMIUM))(hasChromium ? 'a 2026-07-28 client in Chromium' : `a 2026-07-28 client in Chromium (skipped: ${CHROMIUM} is missing; apt-get install chromium)`, () => {
  let issuer: LocalIssuer;
  let gateway: TestGateway;
  let pages: Server;
  let browser: Browser;
  /** The same page server under two names: only the first is an allowed origin. */
  let allowedOrigin: string;
  let otherOrigin: string;

  beforeAll(async () => {
    pages = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>client</title>'));
    pages.listen(0, '127.0.0.1');
    await once(pages, 'listening');
    const { port } = pages.address() as AddressInfo;
    allowedOrigin = `http://localhost:${port}`;
    otherOrigin = `http://127.0.0.1:${port}`;
    issuer = await startLocalIssuer(PUBLIC_URL);
    gateway = await startGateway({
      server: { publicUrl: PUBLIC_URL, allowedOrigins: [allowedOrigin] },
      auth: { issuer: issuer.issuer, jwksUri: issuer.jwksUri },
      mcpServers: { conf: stdioFixture('conformance-2026-server') },
      endpoints: { web: { path: ENDPOINT_PATH, include: ['conf/*'] } },
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await issuer?.stop();
    await new Promise((resolve) => pages?.close(resolve));
  });

  async function pageAt(origin: string): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(`${origin}/`);
    return page;
  }

  /** A fetch made by the page's own script, so that the browser applies CORS to it. */
  function fetchFrom(page: Page, url: string, init: { method: string; headers: Record<string, string>; body?: string }): Promise<Outcome> {
    return page.evaluate(async ({ url, init }) => {
      try {
        const response = await fetch(url, init);
        return { status: response.status, body: await response.text(), contentType: response.headers.get('content-type') };
      } catch (error) {
        return { error: String(error) };
      }
    }, { url, init });
  }

  /** A 2026 tools/call as a conforming client sends it: the envelope, and every header it mirrors. */
  async function toolCall(path: string, region: string): Promise<{ url: string; init: { method: string; headers: Record<string, string>; body: string } }> {
    const token = await issuer.token({}, { audience: `${ORIGIN}${path}` });
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: TOOL, arguments: { region }, _meta: envelope() } };
    return {
      url: new URL(path, gateway.url).toString(),
      init: {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN_VERSION,
          'mcp-method': 'tools/call',
          'mcp-name': TOOL,
          'mcp-param-region': region,
        },
        body: JSON.stringify(body),
      },
    };
  }

  const preflights = (path: string) => gateway.logs.filter((line) => line.msg === 'http request' && line.method === 'OPTIONS' && line.path === path);

  it('reads the protected resource metadata, its preflight included', async () => {
    const page = await pageAt(allowedOrigin);
    try {
      const path = `/.well-known/oauth-protected-resource${ENDPOINT_PATH}`;
      const outcome = await fetchFrom(page, new URL(path, gateway.url).toString(), { method: 'GET', headers: { 'mcp-protocol-version': MODERN_VERSION } });
      expect(outcome).toMatchObject({ status: 200 });
      expect(JSON.parse((outcome as { body: string }).body)).toMatchObject({ resource: `${ORIGIN}${ENDPOINT_PATH}`, authorization_servers: [issuer.issuer] });
      expect(preflights(path)).toEqual([expect.objectContaining({ status: 204 })]);
    } finally {
      await page.close();
    }
  }, 30_000);

  it('completes a tools/call with a token and mirrored headers on server.path and on an endpoint, preflight included', async () => {
    const page = await pageAt(allowedOrigin);
    try {
      for (const [path, region] of [['/mcp', 'eu-west1'], [ENDPOINT_PATH, 'us-east2']] as const) {
        const { url, init } = await toolCall(path, region);
        const outcome = await fetchFrom(page, url, init);
        expect(outcome, path).toMatchObject({ status: 200 });
        const { body, contentType } = outcome as { body: string; contentType: string };
        // The gateway answers with JSON or an SSE stream; either way the result is in the body.
        const json = contentType.startsWith('text/event-stream') ? /^data: (.*)$/m.exec(body)![1]! : body;
        expect(JSON.parse(json), path).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: `region: ${region}` }] } });
        expect(preflights(path), path).toEqual([expect.objectContaining({ status: 204 })]);
      }
    } finally {
      await page.close();
    }
  }, 30_000);

  it('refuses the same call from a page on an origin that is not allowed, and audits the refusal', async () => {
    const page = await pageAt(otherOrigin);
    try {
      const { url, init } = await toolCall('/mcp', 'eu-west1');
      const outcome = await fetchFrom(page, url, init);
      expect(outcome).toEqual({ error: expect.stringMatching(/TypeError/) });
      expect(gateway.logs).toContainEqual(
        expect.objectContaining({ audit: true, outcome: 'denied', reason: 'origin', detail: otherOrigin, httpMethod: 'OPTIONS', status: 403 }),
      );
    } finally {
      await page.close();
    }
  }, 30_000);
});
