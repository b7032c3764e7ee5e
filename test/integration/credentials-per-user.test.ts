// perUser credentials: each caller reaches an upstream with a secret of their own, read from a
// directory of files (a mounted Kubernetes Secret): in a header of an HTTP upstream, in the
// environment of a stdio process of their own. A caller without one sees the server hidden or gets
// an error that says what is missing, and no subject reaches outside the directory.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.js';
import { connectModern } from '../support/modern-client.js';
import { startHttpFixture, stdioFixture, type HttpUpstream } from '../support/upstreams.js';

const PUBLIC_URL = 'https://mcp.switchboard.test/mcp';

let issuer: LocalIssuer;
let headerEcho: HttpUpstream;
let gateway: TestGateway;
let secrets: string;
const clients: Client[] = [];

beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), 'switchboard-per-user-'));
  secrets = join(root, 'secrets');
  mkdirSync(secrets);
  writeFileSync(join(secrets, 'alice'), 'alice-secret\n');
  // The claim's value is mapped to a name a Kubernetes Secret key may have: "@" is "_40".
  writeFileSync(join(secrets, 'bob_40example.com'), 'bob-secret\n');
  // What a subject like "../outside" would reach if names were taken as paths.
  writeFileSync(join(root, 'outside'), 'not-for-anyone\n');
  [issuer, headerEcho] = await Promise.all([startLocalIssuer(PUBLIC_URL), startHttpFixture('header-echo-server')]);
  gateway = await startGateway({
    server: { publicUrl: PUBLIC_URL },
    auth: { issuer: issuer.issuer, jwksUri: issuer.jwksUri },
    mcpServers: {
      echo: {
        url: headerEcho.url,
        headers: { 'X-Api-Key': 'the-service-account-key' },
        isolation: 'session',
        credentials: { perUser: { directory: secrets, header: 'X-Api-Key' }, whenMissing: 'error' },
      },
      twin: {
        ...stdioFixture('twin-server'),
        isolation: 'session',
        // A first list waits for the caller's process however loaded the machine.
        listConnectTimeoutMs: 30_000,
        credentials: { perUser: { directory: secrets, env: 'TWIN_LABEL' }, whenMissing: 'hide' },
      },
    },
  });
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
  await gateway?.close();
  await Promise.all([headerEcho?.stop(), issuer?.stop()]);
});

async function clientAs(sub: string): Promise<Client> {
  const token = await issuer.token({ sub });
  const client = new Client({ name: `client-of-${sub}`, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

function textOf(result: unknown): string {
  return (result as { content: { text: string }[] }).content[0]!.text;
}

async function headersSeenUpstream(client: Client): Promise<Record<string, string>> {
  return JSON.parse(textOf(await client.callTool({ name: 'echo__last_headers', arguments: {} }))) as Record<string, string>;
}

describe('perUser credentials for an HTTP upstream', () => {
  it('sends each caller their own secret in the configured header', async () => {
    const [alice, bob] = await Promise.all([clientAs('alice'), clientAs('bob@example.com')]);
    const [seenForAlice, seenForBob] = await Promise.all([headersSeenUpstream(alice), headersSeenUpstream(bob)]);
    expect(seenForAlice['x-api-key']).toBe('alice-secret');
    expect(seenForBob['x-api-key']).toBe('bob-secret');
  });

  it('never passes the client token on', async () => {
    const token = await issuer.token({ sub: 'alice' });
    const alice = new Client({ name: 'alice-again', version: '1.0.0' });
    await alice.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    clients.push(alice);
    const text = textOf(await alice.callTool({ name: 'echo__last_headers', arguments: {} }));
    expect(text).not.toContain(token);
    expect(text).not.toContain(token.split('.')[2]!);
  });

  it('answers a caller without a secret with an error naming the server and what is missing', async () => {
    // Listed from the server's last lists on this replica: someone with a secret has used it.
    await (await clientAs('alice')).listTools();
    const carol = await clientAs('carol');
    const names = (await carol.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('echo__last_headers');
    const failure = await carol.callTool({ name: 'echo__last_headers', arguments: {} }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as { code?: number }).code).toBe(-32004);
    expect(String((failure as Error).message)).toMatch(/upstream "echo".*no secret named "carol"/);
  });

  it('serves a 2026 caller with their own secret too', async () => {
    const token = await issuer.token({ sub: 'alice' });
    const modern = await connectModern(gateway.url, { headers: { authorization: `Bearer ${token}` } });
    clients.push(modern);
    const seen = JSON.parse(textOf(await modern.callTool({ name: 'echo__last_headers', arguments: {} }))) as Record<string, string>;
    expect(seen['x-api-key']).toBe('alice-secret');
  });

  it('writes the credential mode in the audit line', async () => {
    const alice = await clientAs('alice');
    await alice.callTool({ name: 'echo__last_headers', arguments: {} });
    const lines = gateway.logs.filter((line) => line.audit === true && line.sub === 'alice' && line.server === 'echo');
    expect(lines.at(-1)).toMatchObject({ credentialMode: 'perUser', outcome: 'ok' });
    // (The twin fixture names itself after its TWIN_LABEL, the secret, and the log quotes its name.)
    expect(JSON.stringify(gateway.logs.filter((line) => line.server !== 'twin'))).not.toContain('alice-secret');
  });
});

describe('perUser credentials for a stdio upstream', () => {
  it('starts each caller a process with their secret in its environment', async () => {
    const [alice, bob] = await Promise.all([clientAs('alice'), clientAs('bob@example.com')]);
    const [forAlice, forBob] = await Promise.all([
      alice.callTool({ name: 'twin__whoami', arguments: {} }),
      bob.callTool({ name: 'twin__whoami', arguments: {} }),
    ]);
    expect(textOf(forAlice)).toContain('alice-secret');
    expect(textOf(forBob)).toContain('bob-secret');
  });

  it('hides the server from a caller without a secret (whenMissing: hide)', async () => {
    const carol = await clientAs('carol');
    const names = (await carol.listTools()).tools.map((tool) => tool.name);
    expect(names.filter((name) => name.startsWith('twin__'))).toEqual([]);
    const failure = await carol.callTool({ name: 'twin__whoami', arguments: {} }).catch((error: unknown) => error);
    expect(String((failure as Error).message)).toMatch(/Unknown tool: twin__whoami/);
  });

  it('never reads outside the directory, whatever the subject', async () => {
    for (const sub of ['../outside', '../../etc/passwd', '..', '.']) {
      const intruder = await clientAs(sub);
      const failure = await intruder.callTool({ name: 'echo__last_headers', arguments: {} }).catch((error: unknown) => error);
      expect((failure as { code?: number }).code, sub).toBe(-32004);
      expect(JSON.stringify(failure)).not.toContain('not-for-anyone');
      const names = (await intruder.listTools()).tools.map((tool) => tool.name);
      expect(names.filter((name) => name.startsWith('twin__')), sub).toEqual([]);
    }
  });
});
