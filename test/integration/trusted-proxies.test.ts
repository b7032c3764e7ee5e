// server.trustedProxies: behind an Ingress controller every anonymous client's TCP peer is the
// controller, so the rate limit per client address would be one bucket for everyone. With the
// controller's address trusted, the address it forwards (X-Forwarded-For) is the client's: on the
// fast path (POST) and the Hono app (GET, DELETE), in the refusals' audit lines. Without the setting,
// or from a peer that is not trusted, the header is never read. Here the test is the proxy: it
// connects from 127.0.0.1 and writes the header as a controller would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { rawPost, rawRequest } from '../support/raw-http.js';
import { stdioFixture } from '../support/upstreams.js';

const LIMIT = 3;
const PING = { jsonrpc: '2.0', id: 2, method: 'ping' };
const forwarded = (...hops: string[]) => ({ 'x-forwarded-for': hops.join(', ') });

/** Anonymous requests (no session: 400, counted all the same) until one is refused; the statuses. */
async function spend(url: string, headers: Record<string, string>, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let index = 0; index < count; index += 1) statuses.push((await rawPost(url, PING, { headers })).status);
  return statuses;
}

describe('behind a trusted proxy', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startGateway({ server: { trustedProxies: ['127.0.0.1/32', '::1'] }, limits: { requestsPerMinute: LIMIT }, mcpServers: { paged: stdioFixture('paged-server') } });
  }, 60_000);
  afterAll(async () => gateway?.close());

  it('counts each forwarded client apart, on POST and GET alike, and audits the forwarded address', async () => {
    expect(await spend(gateway.url, forwarded('203.0.113.5'), LIMIT + 1)).toEqual([400, 400, 400, 429]);
    // Another client behind the same proxy has a bucket of its own; its GET counts in it too.
    expect((await rawRequest(gateway.url, 'GET', { accept: 'text/event-stream', ...forwarded('203.0.113.6') })).status).toBe(400);
    expect(await spend(gateway.url, forwarded('203.0.113.6'), LIMIT)).toEqual([400, 400, 429]);
    const refusals = gateway.logs.filter((line) => line.audit === true && line.reason === 'rate-limit');
    expect(refusals.map((line) => line.client)).toEqual(['203.0.113.5', '203.0.113.6']);
  });

  it('never believes what the client wrote left of the proxy\'s own entry', async () => {
    // The proxy appends the address it saw (203.0.113.7); "198.51.100.1" is the client's own writing.
    expect(await spend(gateway.url, forwarded('198.51.100.1', '203.0.113.7'), LIMIT + 1)).toEqual([400, 400, 400, 429]);
    expect(await spend(gateway.url, forwarded('198.51.100.2', '203.0.113.7'), 1)).toEqual([429]);
  });
});

describe('without trusted proxies', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startGateway({ limits: { requestsPerMinute: LIMIT }, mcpServers: { paged: stdioFixture('paged-server') } });
  }, 60_000);
  afterAll(async () => gateway?.close());

  it('reads no forwarding header: every request from this peer shares its bucket', async () => {
    expect(await spend(gateway.url, forwarded('203.0.113.5'), LIMIT)).toEqual([400, 400, 400]);
    expect(await spend(gateway.url, forwarded('203.0.113.6'), 1)).toEqual([429]);
    const refusal = gateway.logs.find((line) => line.audit === true && line.reason === 'rate-limit');
    expect(refusal?.client).toMatch(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
  });
});
