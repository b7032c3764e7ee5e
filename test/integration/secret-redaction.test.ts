// Secrets never leave in error text, through the real command line: a gateway process whose HTTP
// upstream refuses it and quotes the configured API key and the URL's access token in its answer,
// and whose stdio upstream prints its env secret to stderr. Not one of them shows in the process's
// output (the log), /readyz, /api/status, /api/config, the status page or a client's error answer,
// while the error itself still shows. And an upstream URL with user info is refused by validate
// and by serve, with its key path and without the password.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startGatewayProcess, writeConfigFile, type GatewayProcess } from '../support/gateway-process.js';
import { connectV2, type TestClient } from '../support/mcp-clients.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HEADER_SECRET = 'hdr-secret-4f1e9a';
const QUERY_SECRET = 'query-secret-77c2';
const ENV_SECRET = 'env-secret-0b3d5e';
const SECRETS = new RegExp(`${HEADER_SECRET}|${QUERY_SECRET}|${ENV_SECRET}`);

/** An upstream that refuses every request, quoting what it was sent: a careless server's error text. */
async function quotingUpstream(): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    request.resume();
    response.writeHead(404, { 'content-type': 'text/plain' }).end(`no MCP at ${request.url} for key ${String(request.headers['x-api-key'])}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}

function cli(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: REPO_ROOT, timeout: 20_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, output: stdout + stderr });
    });
  });
}

describe('secrets in error text', () => {
  let upstream: { url: string; server: Server };
  let gateway: GatewayProcess;
  let admin: string;
  let client: TestClient;

  beforeAll(async () => {
    upstream = await quotingUpstream();
    const file = writeConfigFile({
      mcpServers: {
        careless: { url: `${upstream.url}?access_token=${QUERY_SECRET}`, headers: { 'X-Api-Key': HEADER_SECRET } },
        chatty: { command: process.execPath, args: ['-e', 'console.error("starting with " + process.env.SERVICE_KEY); process.exit(3)'], env: { SERVICE_KEY: ENV_SECRET } },
      },
    });
    gateway = await startGatewayProcess(file);
    admin = String(gateway.logs.find((line) => line.msg === 'switchboard listening')?.admin);
    // Both have failed at least once, and said so in the log.
    await vi.waitFor(() => {
      const failed = gateway.logs.filter((line) => line.msg === 'upstream unavailable').map((line) => line.server);
      expect(failed).toEqual(expect.arrayContaining(['careless', 'chatty']));
      expect(gateway.logs.some((line) => line.server === 'chatty' && typeof line.msg === 'string' && line.msg.startsWith('starting with'))).toBe(true);
    }, { timeout: 20_000, interval: 100 });
    client = await connectV2(gateway.url);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await gateway?.stop();
    upstream?.server.close();
  });

  it('keeps them out of the log, while the upstream’s error still shows', () => {
    const log = JSON.stringify(gateway.logs) + gateway.stderr.join('');
    expect(log).not.toMatch(SECRETS);
    const careless = gateway.logs.find((line) => line.msg === 'upstream unavailable' && line.server === 'careless');
    expect(careless?.error).toMatch(/^could not connect to http:\/\/127\.0\.0\.1:\d+\/mcp: .*HTTP 404.*no MCP at \/mcp\?access_token=\[redacted\] for key \[redacted\]$/);
    expect(gateway.logs).toContainEqual(expect.objectContaining({ server: 'chatty', msg: 'starting with [redacted]' }));
  });

  it('keeps them out of /readyz, /api/status, /api/config and the status page', async () => {
    const readyz = await (await fetch(new URL('/readyz', gateway.url))).text();
    expect(readyz).toContain('for key [redacted]');
    const texts = await Promise.all(['/api/status', '/api/config', new URL(admin).pathname].map(async (path) => (await fetch(new URL(path, admin))).text()));
    expect(texts[0]).toContain('for key [redacted]');
    expect(texts[2]).toContain('for key [redacted]');
    for (const text of [readyz, ...texts]) expect(text).not.toMatch(SECRETS);
  });

  it('keeps them out of a client’s error answer', async () => {
    const answer = client.request('tools/call', { name: 'careless__anything', arguments: {} });
    await expect(answer).rejects.toThrow(/upstream "careless" is unavailable: .*for key \[redacted\]/);
    const message = await answer.catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
    expect(message).not.toMatch(SECRETS);
  });
});

describe('an upstream URL with user info', () => {
  const file = writeConfigFile({ mcpServers: { ops: { url: 'http://user:secret@127.0.0.1:9/mcp' } } });

  it('is refused by validate, with its key path and without the password', async () => {
    const { code, output } = await cli(['validate', '--config', file]);
    expect(code).toBe(1);
    expect(output).toContain('mcpServers.ops.url: must not carry a user name or password');
    expect(output).not.toContain('secret');
  });

  it('is refused by serve the same way, before anything listens', async () => {
    const { code, output } = await cli(['--config', file, '--port', '0']);
    expect(code).not.toBe(0);
    expect(output).toContain('mcpServers.ops.url');
    expect(output).not.toContain('secret');
  });
});
