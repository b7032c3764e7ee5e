// Policy through a listening gateway in front of server-everything: lists filtered per principal,
// and a denied tool, prompt or resource answered exactly like an unknown one, with an audit line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.js';
import { rawPost, type RawResponse } from '../support/raw-http.js';
import { everythingStdio } from '../support/upstreams.js';

const PUBLIC_URL = 'https://mcp.switchboard.test/mcp';
const ARCHITECTURE = 'demo://resource/static/document/architecture.md';
const exposed = (uri: string) => uri.replace(/^demo:/, 'demo+everything:');

let issuer: LocalIssuer;
let gateway: TestGateway;

beforeAll(async () => {
  issuer = await startLocalIssuer(PUBLIC_URL);
  gateway = await startGateway({
    server: { publicUrl: PUBLIC_URL },
    auth: { issuer: issuer.issuer, jwksUri: issuer.jwksUri },
    mcpServers: { everything: everythingStdio() },
    policy: {
      default: 'deny',
      rules: [
        // No conditions: everyone with a valid token.
        { allow: ['everything/echo', 'everything/simple-prompt', `everything/${ARCHITECTURE}`] },
        { when: { claims: { groups: 'admins' } }, allow: ['*/*'] },
        {
          when: { scopes: ['mcp:read'] },
          allow: ['everything/get-*', 'everything/args-prompt', 'everything/demo://resource/dynamic/text/*'],
          deny: ['everything/get-env'],
        },
      ],
    },
  });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await issuer?.stop();
});

/** A session for a principal with these claims; `call` sends one request in it. */
async function sessionFor(claims: Record<string, unknown>): Promise<{ sub: string; call: (method: string, params?: object) => Promise<RawResponse> }> {
  const token = await issuer.token(claims);
  const headers = { authorization: `Bearer ${token}` };
  const init = await rawPost(
    gateway.url,
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'policy-test', version: '1' } } },
    { headers },
  );
  const sessionId = init.headers.get('mcp-session-id');
  if (init.status !== 200 || !sessionId) throw new Error(`initialize failed: ${init.status}`);
  let id = 0;
  return {
    sub: String(JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sub),
    call: (method, params) => rawPost(gateway.url, { jsonrpc: '2.0', id: ++id, method, ...(params && { params }) }, { sessionId, headers }),
  };
}

function result(response: RawResponse): Record<string, unknown> {
  const body = response.body as { result?: Record<string, unknown>; error?: unknown };
  if (!body.result) throw new Error(`expected a result, got ${JSON.stringify(body)}`);
  return body.result;
}

function error(response: RawResponse): { code: number; message: string; data?: unknown } {
  const body = response.body as { error?: { code: number; message: string; data?: unknown } };
  if (!body.error) throw new Error(`expected an error, got ${JSON.stringify(body)}`);
  return body.error;
}

const names = (items: unknown) => (items as { name: string }[]).map((item) => item.name).sort();

describe('lists', () => {
  it('show a principal that only the unconditional rule matches only what that rule allows', async () => {
    const { call } = await sessionFor({});
    expect(names(result(await call('tools/list')).tools)).toEqual(['everything__echo']);
    expect(names(result(await call('prompts/list')).prompts)).toEqual(['everything__simple-prompt']);
    expect((result(await call('resources/list')).resources as { uri: string }[]).map((r) => r.uri)).toEqual([exposed(ARCHITECTURE)]);
    expect(result(await call('resources/templates/list')).resourceTemplates).toEqual([]);
  });

  it('show an admin everything', async () => {
    const { call } = await sessionFor({ groups: ['staff', 'admins'] });
    const tools = names(result(await call('tools/list')).tools);
    expect(tools).toEqual(expect.arrayContaining(['everything__echo', 'everything__get-env', 'everything__trigger-long-running-operation']));
    expect(tools.length).toBeGreaterThanOrEqual(13);
    expect((result(await call('resources/templates/list')).resourceTemplates as unknown[]).length).toBe(2);
  });

  it('add up the allows of all matching rules, minus the denies', async () => {
    const { call } = await sessionFor({ scope: 'mcp:read' });
    const tools = names(result(await call('tools/list')).tools);
    expect(tools).toEqual(expect.arrayContaining(['everything__echo', 'everything__get-sum', 'everything__get-tiny-image']));
    expect(tools.every((name) => name === 'everything__echo' || name.startsWith('everything__get-'))).toBe(true);
    expect(tools).not.toContain('everything__get-env');
    expect(names(result(await call('prompts/list')).prompts)).toEqual(['everything__args-prompt', 'everything__simple-prompt']);
    expect((result(await call('resources/templates/list')).resourceTemplates as { uriTemplate: string }[]).map((t) => t.uriTemplate)).toEqual([
      'demo+everything://resource/dynamic/text/{resourceId}',
    ]);
  });
});

describe('a denied item', () => {
  it('is refused for tools/call with exactly the error of an unknown tool, and audited as denied', async () => {
    const { call, sub } = await sessionFor({ scope: 'mcp:read' });
    const denied = error(await call('tools/call', { name: 'everything__get-env', arguments: {} }));
    const unknown = error(await call('tools/call', { name: 'everything__no-such-tool', arguments: {} }));
    expect(denied).toEqual({ ...unknown, message: unknown.message.replace('no-such-tool', 'get-env') });
    expect(result(await call('tools/call', { name: 'everything__get-sum', arguments: { a: 1, b: 2 } }))).toBeDefined();
    const audit = gateway.logs.filter((line) => line.audit === true && line.sub === sub && line.method === 'tools/call');
    expect(audit.map((line) => [line.name, line.outcome])).toEqual([
      ['get-env', 'denied'],
      // An unknown tool names no upstream item.
      [undefined, 'error'],
      ['get-sum', 'ok'],
    ]);
    expect(audit[0]).toMatchObject({ server: 'everything' });
  });

  it('is refused for prompts/get and completion with exactly the error of an unknown prompt', async () => {
    const { call } = await sessionFor({});
    const denied = error(await call('prompts/get', { name: 'everything__args-prompt', arguments: { city: 'x' } }));
    const unknown = error(await call('prompts/get', { name: 'everything__no-such-prompt' }));
    expect(denied).toEqual({ ...unknown, message: unknown.message.replace('no-such-prompt', 'args-prompt') });
    const completion = error(
      await call('completion/complete', { ref: { type: 'ref/prompt', name: 'everything__args-prompt' }, argument: { name: 'city', value: 'a' } }),
    );
    expect(completion).toEqual(denied);
  });

  it('is refused for resources/read with exactly the error of an unknown resource, listed or reached through a template', async () => {
    const reader = await sessionFor({ scope: 'mcp:read' });
    const listedButDenied = exposed('demo://resource/static/document/features.md');
    const templatedButDenied = exposed('demo://resource/dynamic/blob/1');
    const unknown = exposed('demo://resource/static/document/no-such-document.md');
    for (const uri of [listedButDenied, templatedButDenied]) {
      expect(error(await reader.call('resources/read', { uri }))).toEqual({ code: -32002, message: `Resource not found: ${uri}`, data: { uri } });
    }
    expect(error(await reader.call('resources/read', { uri: unknown }))).toEqual({ code: -32002, message: `Resource not found: ${unknown}`, data: { uri: unknown } });
    const allowed = result(await reader.call('resources/read', { uri: exposed('demo://resource/dynamic/text/1') }));
    expect(JSON.stringify(allowed.contents)).toContain('demo+everything://resource/dynamic/text/1');
    expect(result(await reader.call('resources/read', { uri: exposed(ARCHITECTURE) }))).toBeDefined();
  });

  it('cannot be subscribed to', async () => {
    const { call } = await sessionFor({});
    const uri = exposed('demo://resource/static/document/features.md');
    expect(error(await call('resources/subscribe', { uri }))).toMatchObject({ code: -32002 });
  });
});
