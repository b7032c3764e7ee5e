// HTTP upstreams: `transport: auto` tries Streamable HTTP and falls back to the legacy HTTP+SSE
// transport for a server that predates it; `transport: sse` goes there directly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { connect, type TestClient } from '../support/mcp-clients.js';
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
