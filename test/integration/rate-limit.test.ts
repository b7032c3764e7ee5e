// limits.requestsPerMinute: 429 with Retry-After once used up, per principal (or client address),
// counted in memory by one gateway and in Redis across two.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.js';
import { rawPost, rawRequest, type RawResponse } from '../support/raw-http.js';
import { redisUrl } from '../support/redis.js';
import { stdioFixture } from '../support/upstreams.js';

const PUBLIC_URL = 'https://mcp.switchboard.test/mcp';
const LIMIT = 6;
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'limits-test', version: '1' } },
};
const PING = { jsonrpc: '2.0', id: 2, method: 'ping' };

function expectTooManyRequests(response: RawResponse): void {
  expect(response.status).toBe(429);
  const retryAfter = response.headers.get('retry-after');
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(120);
  expect(response.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32013, message: expect.stringMatching(/Too Many Requests/) } });
}

describe('one gateway with the memory store', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startGateway({ limits: { requestsPerMinute: LIMIT }, mcpServers: { paged: stdioFixture('paged-server') } });
  }, 60_000);
  afterAll(async () => gateway?.close());

  it('answers requests past the limit with 429 and Retry-After, counting every request by client address', async () => {
    const init = await rawPost(gateway.url, INITIALIZE);
    const sessionId = init.headers.get('mcp-session-id')!;
    const answers: number[] = [init.status];
    // A request without a session (400) and a DELETE of an unknown one (404) count as well.
    answers.push((await rawPost(gateway.url, PING)).status);
    answers.push((await rawRequest(gateway.url, 'DELETE', { 'mcp-session-id': 'AAAAAAAAAAAAAAAAAAAAAA' })).status);
    while (answers.length < LIMIT) answers.push((await rawPost(gateway.url, PING, { sessionId })).status);
    expect(answers).toEqual([200, 400, 404, 200, 200, 200]);
    expectTooManyRequests(await rawPost(gateway.url, PING, { sessionId }));
    expect(gateway.logs.filter((line) => line.audit === true && line.reason === 'rate-limit')).toHaveLength(1);
  });

  it('leaves the health and metadata endpoints out of the count', async () => {
    const origin = new URL(gateway.url).origin;
    expect((await rawRequest(`${origin}/healthz`, 'GET')).status).toBe(200);
  });
});

describe('two gateways sharing Redis', () => {
  let issuer: LocalIssuer;
  let first: TestGateway;
  let second: TestGateway;

  beforeAll(async () => {
    issuer = await startLocalIssuer(PUBLIC_URL);
    const config = {
      server: { publicUrl: PUBLIC_URL },
      sessions: { store: 'redis' as const, redisUrl: redisUrl() },
      auth: { issuer: issuer.issuer, jwksUri: issuer.jwksUri },
      limits: { requestsPerMinute: LIMIT },
      mcpServers: { paged: stdioFixture('paged-server') },
    };
    [first, second] = await Promise.all([startGateway(config), startGateway(config)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await issuer?.stop();
  });

  it('hold the limit across both, requests alternating between them', async () => {
    // A fresh subject, so no earlier run's counts (kept two minutes in Redis) are in the way.
    const headers = { authorization: `Bearer ${await issuer.token({ sub: `limited-${randomUUID()}` })}` };
    const init = await rawPost(first.url, INITIALIZE, { headers });
    expect(init.status).toBe(200);
    const sessionId = init.headers.get('mcp-session-id')!;
    const gateways = [second, first];
    const statuses: number[] = [];
    for (let index = 1; index < LIMIT; index++) {
      statuses.push((await rawPost(gateways[index % 2]!.url, PING, { sessionId, headers })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expectTooManyRequests(await rawPost(second.url, PING, { sessionId, headers }));
    expectTooManyRequests(await rawPost(first.url, PING, { sessionId, headers }));
  });

  it('count each principal on its own', async () => {
    const headers = { authorization: `Bearer ${await issuer.token({ sub: `other-${randomUUID()}` })}` };
    expect((await rawPost(second.url, INITIALIZE, { headers })).status).toBe(200);
  });
});
