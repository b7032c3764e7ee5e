// Under a policy, a catalogue change is announced only to the sessions whose own (filtered) view
// changed: a tool a principal may not see appearing is no news to that principal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FetchLike } from '@modelcontextprotocol/client';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.js';
import { connectRecordingClient, type RecordingClient } from '../support/recording-client.js';
import { stdioFixture } from '../support/upstreams.js';

const PUBLIC_URL = 'https://mcp.switchboard.test/mcp';

describe('list_changed under a policy', () => {
  let issuer: LocalIssuer;
  let gateway: TestGateway;
  const clients: RecordingClient[] = [];

  beforeAll(async () => {
    issuer = await startLocalIssuer(PUBLIC_URL);
    gateway = await startGateway({
      server: { publicUrl: PUBLIC_URL },
      auth: { issuer: issuer.issuer, jwksUri: issuer.jwksUri },
      mcpServers: { interactive: stdioFixture('interactive-server') },
      policy: {
        default: 'deny',
        rules: [
          { allow: ['interactive/add_tool', 'interactive/visible_*'] },
          { when: { claims: { groups: 'admins' } }, allow: ['*/*'] },
        ],
      },
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await gateway?.close();
    await issuer?.stop();
  });

  async function clientWith(claims: Record<string, unknown>): Promise<RecordingClient> {
    const authorization = `Bearer ${await issuer.token(claims)}`;
    const withToken: FetchLike = (url, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', authorization);
      return fetch(url, { ...init, headers });
    };
    const connected = await connectRecordingClient(gateway.url, { fetch: withToken });
    clients.push(connected);
    return connected;
  }

  it('goes only to the sessions that can see what changed', async () => {
    const admin = await clientWith({ groups: ['admins'] });
    const user = await clientWith({});
    await user.client.callTool({ name: 'interactive__add_tool', arguments: { name: 'hidden_one' } });
    await admin.waitFor('notifications/tools/list_changed');
    expect((await admin.client.listTools()).tools.map((tool) => tool.name)).toContain('interactive__hidden_one');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(user.received('notifications/tools/list_changed')).toEqual([]);

    await user.client.callTool({ name: 'interactive__add_tool', arguments: { name: 'visible_one' } });
    await user.waitFor('notifications/tools/list_changed');
    await admin.waitFor('notifications/tools/list_changed', 2);
    expect((await user.client.listTools()).tools.map((tool) => tool.name)).toEqual(['interactive__add_tool', 'interactive__visible_one']);
  });
});
