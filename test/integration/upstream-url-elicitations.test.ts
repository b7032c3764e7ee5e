// An upstream's own URL elicitations pass through the gateway (issue 43): its -32042 reaches a
// 2025-11-25 client with the elicitations as they were, and a 2026-07-28 client as input_required
// whose retry calls the upstream again; its URL-mode elicitation/create reaches the client whose
// call it belongs to; and its notifications/elicitation/complete goes to the session that was given
// that elicitation, never to the other sessions (not even the one whose request made the upstream
// send it). A real gateway, the v2 SDK clients, and a fixture server that asks for URLs.
import { Client, StreamableHTTPClientTransport, UrlElicitationRequiredError, type ElicitRequestURLParams } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { connectModern } from '../support/modern-client.js';
import { stdioFixture } from '../support/upstreams.js';

describe('upstream URL elicitations pass through', () => {
  let gateway: TestGateway;
  const clients: Client[] = [];

  beforeAll(async () => {
    gateway = await startGateway({ mcpServers: { asker: stdioFixture('url-elicit-server') } });
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await gateway?.close();
  });

  /** A 2025 client that declared URL elicitation, noting the completions it hears and the URLs it is asked to open. */
  async function client2025(): Promise<{ client: Client; completed: string[]; opened: ElicitRequestURLParams[] }> {
    const completed: string[] = [];
    const opened: ElicitRequestURLParams[] = [];
    const client = new Client({ name: 'url-elicitations-2025', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
    client.setNotificationHandler('notifications/elicitation/complete', (notification) => void completed.push(notification.params.elicitationId));
    client.setRequestHandler('elicitation/create', (request) => {
      opened.push(request.params as ElicitRequestURLParams);
      return { action: 'accept' };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
    clients.push(client);
    return { client, completed, opened };
  }

  const textOf = (result: { content?: unknown }): string => ((result.content ?? []) as { text?: string }[]).map((part) => part.text ?? '').join('\n');

  it("gives a 2025 client the upstream's -32042, and its completion to that session alone", async () => {
    const ada = await client2025();
    const bob = await client2025();
    const refused = await ada.client.callTool({ name: 'asker__needs_url', arguments: {} }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(UrlElicitationRequiredError);
    const [elicitation] = (refused as UrlElicitationRequiredError).elicitations;
    expect(elicitation).toEqual({ mode: 'url', elicitationId: expect.stringMatching(/^required-/), url: expect.stringContaining('https://confirm.example/'), message: expect.any(String) });

    // Bob's call is the one in flight when the upstream sends the completion: still, only Ada hears it.
    expect(textOf(await bob.client.callTool({ name: 'asker__confirm', arguments: { elicitationId: elicitation!.elicitationId } }))).toContain('completed');
    await vi.waitFor(() => expect(ada.completed).toEqual([elicitation!.elicitationId]), { timeout: 10_000, interval: 100 });
    expect(bob.completed).toEqual([]);
    expect(textOf(await ada.client.callTool({ name: 'asker__needs_url', arguments: {} }))).toContain(`confirmed ${elicitation!.elicitationId}`);
  }, 60_000);

  it("relays the upstream's URL-mode elicitation/create to the client whose call it is, and routes its completion there", async () => {
    const ada = await client2025();
    const bob = await client2025();
    const answer = JSON.parse(textOf(await ada.client.callTool({ name: 'asker__open_url', arguments: {} }))) as { elicitationId: string; action: string };
    expect(answer.action).toBe('accept');
    expect(ada.opened).toEqual([{ mode: 'url', elicitationId: answer.elicitationId, url: `https://confirm.example/${answer.elicitationId}`, message: expect.any(String) }]);
    await bob.client.callTool({ name: 'asker__confirm', arguments: { elicitationId: answer.elicitationId } });
    await vi.waitFor(() => expect(ada.completed).toEqual([answer.elicitationId]), { timeout: 10_000, interval: 100 });
    expect(bob.completed).toEqual([]);
  }, 60_000);

  it('sends no URL elicitation to a client of either era that declared only form mode: the upstream is told no', async () => {
    const opened: unknown[] = [];
    const formOnly = new Client({ name: 'form-only-2025', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    formOnly.setRequestHandler('elicitation/create', (request) => {
      opened.push(request.params);
      return { action: 'accept', content: {} };
    });
    await formOnly.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
    clients.push(formOnly);
    const modern = await connectModern(gateway.url);
    clients.push(modern);
    for (const client of [formOnly, modern]) {
      const outcome: unknown = await client.callTool({ name: 'asker__open_url', arguments: {} }).catch((error: unknown) => error);
      expect(JSON.stringify(outcome) + String(outcome)).toMatch(/elicitation\.url/);
    }
    expect(opened).toEqual([]);
  }, 60_000);

  it("asks a 2026 client for the upstream's -32042 through input_required, and its retry calls the upstream again", async () => {
    const helper = await client2025();
    const modern = await connectModern(gateway.url, { capabilities: { elicitation: { url: {} } } });
    clients.push(modern);
    const asked: ElicitRequestURLParams[] = [];
    modern.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as ElicitRequestURLParams;
      asked.push(params);
      // The person finishes at the URL before saying yes.
      await helper.client.callTool({ name: 'asker__confirm', arguments: { elicitationId: new URL(params.url).pathname.slice(1) } });
      return { action: 'accept' };
    });
    const result = await modern.callTool({ name: 'asker__needs_url', arguments: {} });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toEqual({ mode: 'url', url: expect.stringContaining('https://confirm.example/required-'), message: expect.any(String) });
    expect(textOf(result)).toMatch(/^confirmed required-/);
  }, 60_000);
});
