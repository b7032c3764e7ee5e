// mcp-remote (the stdio-to-remote bridge desktop MCP clients use) as a child process, with the
// official client connected to it over stdio, as Claude Desktop or Cursor would be.
//
// Its home and its credential store (MCP_REMOTE_CONFIG_DIR) are a fresh temporary directory, so it
// starts with nothing but the URL it is given. It opens the authorization URL with the `open`
// package, which on Linux runs its own bundled xdg-open script; with no desktop environment that
// script runs `$BROWSER <url>`, and mcp-remote's fallbacks run `xdg-open` and friends from PATH.
// A recording script stands in for all of them, so the URL reaches the test's Chromium instead.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { freePort } from './free-port.js';

const PROXY = fileURLToPath(new URL('../../node_modules/mcp-remote/dist/proxy.js', import.meta.url));
const POLL_MS = 100;
const STDERR_KEPT_CHARS = 20_000;

export interface McpRemoteOptions {
  /** The gateway's MCP endpoint: all mcp-remote is told. */
  readonly serverUrl: string;
  /** More arguments after the URL and callback port, e.g. `['--client-metadata-url', url]`. */
  readonly args?: readonly string[];
  /** More environment, e.g. `{ NODE_EXTRA_CA_CERTS: fixture.caFile }`. */
  readonly env?: Readonly<Record<string, string>>;
  /** The loopback port of its OAuth callback; default a free one. */
  readonly callbackPort?: number;
}

export interface McpRemote {
  /** Where the authorization server sends the browser back: `http://127.0.0.1:<port>/oauth/callback`. */
  readonly callbackUrl: string;
  /** The first URL mcp-remote asked the system to open (its authorization URL), once it has. */
  authorizationUrl(timeoutMs?: number): Promise<string>;
  /**
   * The official client (v2), connected over stdio: resolves once mcp-remote has signed in and
   * relayed the handshake, so await it after the browser steps.
   */
  readonly connected: Promise<Client>;
  /** What mcp-remote has written to stderr so far (its log), for assertions and diagnosis. */
  stderr(): string;
  /** Closes the client, ends the child (SIGKILL if it lingers) and removes its directory. */
  close(): Promise<void>;
}

export async function startMcpRemote(options: McpRemoteOptions): Promise<McpRemote> {
  const home = mkdtempSync(join(tmpdir(), 'switchboard-mcp-remote-'));
  const bin = join(home, 'bin');
  const opened = join(home, 'opened-urls');
  mkdirSync(bin);
  writeFileSync(opened, '');
  const opener = join(bin, 'xdg-open');
  writeFileSync(opener, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`);
  chmodSync(opener, 0o755);

  const callbackPort = options.callbackPort ?? (await freePort());
  const transport = new StdioClientTransport({
    command: process.execPath,
    // An explicit port and host make the redirect URI predictable: http://127.0.0.1:<port>/oauth/callback.
    args: [PROXY, options.serverUrl, String(callbackPort), '--host', '127.0.0.1', ...(options.args ?? [])],
    env: {
      HOME: home,
      MCP_REMOTE_CONFIG_DIR: join(home, '.mcp-auth'),
      PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      BROWSER: opener,
      ...options.env,
    },
    stderr: 'pipe',
  });
  let log = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-STDERR_KEPT_CHARS);
  });
  const client = new Client({ name: 'mcp-remote-test-host', version: '1.0.0' });
  const connected = client.connect(transport).then(() => client);
  // A failure surfaces where the test awaits `connected`; this keeps it from being unhandled before.
  connected.catch(() => {});

  const firstOpened = (): string | undefined => readFileSync(opened, 'utf8').split('\n').find((line) => line !== '');

  return {
    callbackUrl: `http://127.0.0.1:${callbackPort}/oauth/callback`,
    async authorizationUrl(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const url = firstOpened();
        if (url !== undefined) return url;
        if (Date.now() > deadline) throw new Error(`mcp-remote opened no URL within ${timeoutMs} ms; its stderr ended with:\n${log.slice(-4_000)}`);
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    },
    connected,
    stderr: () => log,
    async close() {
      // The transport ends the child: stdin closed, then SIGTERM, then SIGKILL, 2 s apart.
      await client.close().catch(() => {});
      rmSync(home, { recursive: true, force: true });
    },
  };
}
