// HTTP upstreams: `transport: auto` tries Streamable HTTP and falls back to the legacy HTTP+SSE
// transport for a server that predates it; `transport: sse` goes there directly. One that cannot be
// reached is named with its URL and the socket's error, once, wherever the gateway reports it; one
// that answers with a web page is an upstream that is down, not the end of the gateway.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { connect, type TestClient } from '../support/mcp-clients.js';
import { openSession, rawPost } from '../support/raw-http.js';
import { startEverythingSse, type HttpUpstream } from '../support/upstreams.js';

describe('an upstream that speaks only the legacy HTTP+SSE transport', () => {
  let legacy: HttpUpstream;
  let gateway: TestGateway;
  let client: TestClient;

  beforeAll(async () => {
    legacy = await startEverythingSse();
    gateway = await startGateway({
      mcpServers: {
        detected: { url: legacy.url, transport: 'auto' },
        declared: { url: legacy.url, transport: 'sse' },
      },
    });
    client = await connect('v2', gateway.url);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await gateway?.close();
    await legacy?.stop();
  });

  it('is reached through the fallback with transport auto, and directly with transport sse', async () => {
    for (const server of ['detected', 'declared']) {
      const result = await client.request('tools/call', { name: `${server}__echo`, arguments: { message: `via ${server}` } });
      expect(result).toEqual({ content: [{ type: 'text', text: `Echo: via ${server}` }] });
    }
    const ready = (await (await fetch(gateway.url.replace(/\/mcp$/, '/readyz'))).json()) as { upstreams: Record<string, { transport?: string }> };
    expect(ready.upstreams.detected?.transport).toBe('sse');
    expect(ready.upstreams.declared?.transport).toBe('sse');
  });
});

describe('an HTTP upstream on a closed port', () => {
  let gateway: TestGateway;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    gateway = await startGateway({
      mcpServers: {
        // A secret where a careless config puts it: the URL's query. (User info is refused at load:
        // secret-redaction.test.ts.)
        search: { url: `http://127.0.0.1:${port}/mcp?api_key=query-secret` },
      },
    });
  }, 60_000);

  afterAll(async () => gateway?.close());

  it('is named with its URL and the socket error once, in the answer, the log, /readyz and the status, and no secret of its URL', async () => {
    const reason = `could not connect to http://127.0.0.1:${port}/mcp: connect ECONNREFUSED 127.0.0.1:${port}`;
    const failed = () => gateway.logs.filter((line) => line.msg === 'upstream unavailable' && line.server === 'search');
    await expect.poll(() => failed().length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(failed()[0]).toMatchObject({ error: reason });

    const { sessionId } = await openSession(gateway.url);
    const answer = await rawPost(gateway.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search__find', arguments: {} } }, { sessionId });
    expect(answer.body).toMatchObject({ error: { message: `upstream "search" is unavailable: ${reason}`, data: { server: 'search' } } });

    const readyz = (await (await fetch(gateway.url.replace(/\/mcp$/, '/readyz'))).json()) as { upstreams: Record<string, { lastError?: string }> };
    expect(readyz.upstreams.search?.lastError).toBe(reason);
    const status = (await (await fetch(new URL('/api/status', gateway.adminUrl))).json()) as { upstreams: { name: string; lastError: string | null }[] };
    expect(status.upstreams.find((upstream) => upstream.name === 'search')?.lastError).toBe(reason);

    const everything = JSON.stringify([answer.body, readyz, status, gateway.logs]);
    expect(everything).not.toContain('query-secret');
  });
});

describe('an HTTP upstream that answers with a web page', () => {
  it('is reported unavailable, and the gateway keeps serving', async () => {
    const page = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Sign in</body></html>');
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    const gateway = await startGateway({ mcpServers: { portal: { url: `http://127.0.0.1:${(page.address() as AddressInfo).port}/mcp` } } });
    try {
      const failed = () => gateway.logs.filter((line) => line.msg === 'upstream unavailable' && line.server === 'portal');
      // Twice: the gateway outlived the first answer (its unread body once ended the process).
      await expect.poll(() => failed().length, { timeout: 10_000 }).toBeGreaterThan(1);
      expect(String(failed()[0]?.error)).toContain('text/html');
      expect((await fetch(gateway.url.replace(/\/mcp$/, '/readyz'))).status).toBe(200);
    } finally {
      await gateway.close();
      page.close();
    }
  }, 30_000);
});
