// The upstream servers that the gateway's integration tests stand on, checked directly with the
// official client: if one of these is wrong, a gateway test would fail for the wrong reason.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import type { Transport } from '@modelcontextprotocol/client';
import { Client, SdkErrorCode, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { ODD_PROMPT_NAME, ODD_TOOL_NAMES } from '../fixtures/odd-names.js';
import type { HttpUpstream, StdioUpstream } from '../support/upstreams.js';
import {
  everythingStdio,
  memoryStdio,
  startEverythingHttp,
  startHttpFixture,
  stdioFixture,
} from '../support/upstreams.js';

const SILENCE_MS = 500;

const openClients: Client[] = [];
afterEach(async () => {
  await Promise.all(openClients.splice(0).map((client) => client.close()));
});

async function connect(transport: Transport, options: { timeout?: number } = {}): Promise<Client> {
  const client = new Client({ name: 'fixtures-test', version: '1.0.0' });
  openClients.push(client);
  await client.connect(transport, options);
  return client;
}

const connectStdio = (upstream: StdioUpstream, cwd?: string): Promise<Client> =>
  connect(new StdioClientTransport({ ...upstream, cwd }));

const connectHttp = (url: string, headers: Record<string, string> = {}): Promise<Client> =>
  connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));

function textOf(result: { content?: unknown }): string {
  const [first] = (result.content ?? []) as { type: string; text?: string }[];
  return first?.type === 'text' ? (first.text ?? '') : '';
}

describe('paged-server', () => {
  it('hands out its tools in pages of 10 whose cursors join them to 125', async () => {
    const client = await connectStdio(stdioFixture('paged-server'));
    const pageSizes: number[] = [];
    const names: string[] = [];
    // listTools() without a cursor would walk all pages itself; the first page is asked for by hand.
    let page = await client.request({ method: 'tools/list', params: {} });
    for (;;) {
      pageSizes.push(page.tools.length);
      names.push(...page.tools.map((tool) => tool.name));
      if (page.nextCursor === undefined) break;
      page = await client.listTools({ cursor: page.nextCursor });
    }
    expect(pageSizes).toEqual([...Array<number>(12).fill(10), 5]);
    expect(new Set(names).size).toBe(125);
    expect(names.at(-1)).toBe('tool_124');
  });

  it('paginates prompts, resources and resource templates too', async () => {
    const client = await connectStdio(stdioFixture('paged-server'));
    const firstPrompts = await client.request({ method: 'prompts/list', params: {} });
    expect(firstPrompts.prompts).toHaveLength(10);
    expect((await client.listPrompts()).prompts).toHaveLength(23);
    expect((await client.listResources()).resources).toHaveLength(37);
    expect((await client.listResourceTemplates()).resourceTemplates).toHaveLength(7);
  });

  it('answers an invalid cursor with -32602', async () => {
    const client = await connectStdio(stdioFixture('paged-server'));
    await expect(client.listTools({ cursor: 'not-a-cursor' })).rejects.toMatchObject({ code: -32602 });
  });

  it('echoes the tool name and arguments', async () => {
    const client = await connectStdio(stdioFixture('paged-server'));
    const result = await client.callTool({ name: 'tool_042', arguments: { text: 'hi' } });
    expect(textOf(result)).toBe('tool_042 {"text":"hi"}');
  });

  describe('over Streamable HTTP', () => {
    let upstream: HttpUpstream;
    beforeAll(async () => {
      upstream = await startHttpFixture('paged-server');
    });
    afterAll(() => upstream.stop());

    it('joins to 125 tools as well', async () => {
      const client = await connectHttp(upstream.url);
      expect((await client.listTools()).tools).toHaveLength(125);
    });

    it('also serves a client that negotiates the 2026-07-28 era', async () => {
      const client = new Client({ name: 'fixtures-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
      openClients.push(client);
      await client.connect(new StreamableHTTPClientTransport(new URL(upstream.url)));
      expect(client.getProtocolEra()).toBe('modern');
      expect((await client.listTools()).tools).toHaveLength(125);
    });
  });

  it('starts from any working directory', async () => {
    const client = await connectStdio(stdioFixture('paged-server'), tmpdir());
    expect(await client.ping()).toEqual({});
  });
});

describe('twin-server', () => {
  it.each(['left', 'right'])('says it is %s in every kind of answer', async (label) => {
    const client = await connectStdio(stdioFixture('twin-server', { TWIN_LABEL: label }));

    expect(textOf(await client.callTool({ name: 'whoami' }))).toBe(label);
    const readme = await client.readResource({ uri: 'twin://shared/readme' });
    expect(readme.contents[0]).toMatchObject({ uri: 'twin://shared/readme', text: `readme served by ${label}` });
    const item = await client.readResource({ uri: 'twin://items/9' });
    expect(item.contents[0]).toMatchObject({ uri: 'twin://items/9', text: `item 9 served by ${label}` });

    const names = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: '' } });
    expect(names.completion.values).toEqual([`${label}-ada`, `${label}-alan`, `${label}-grace`]);
    const ids = await client.complete({
      ref: { type: 'ref/resource', uri: 'twin://items/{id}' },
      argument: { name: 'id', value: `${label}-` },
    });
    expect(ids.completion.values).toEqual([`${label}-1`, `${label}-2`, `${label}-7`]);
  });

  it('lists the same resource, template, tool and prompt names in both twins', async () => {
    const left = await connectStdio(stdioFixture('twin-server', { TWIN_LABEL: 'left' }));
    const right = await connectStdio(stdioFixture('twin-server', { TWIN_LABEL: 'right' }));
    for (const client of [left, right]) {
      expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['twin://shared/readme']);
      expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(['twin://items/{id}']);
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['link', 'whoami']);
      expect((await client.listPrompts()).prompts.map((p) => p.name).sort()).toEqual(['greet', 'with_resource']);
    }
  });

  it('hands out URIs in tool and prompt results', async () => {
    const client = await connectStdio(stdioFixture('twin-server', { TWIN_LABEL: 'left' }));
    const link = await client.callTool({ name: 'link' });
    expect(link.content).toEqual([
      expect.objectContaining({ type: 'resource_link', uri: 'twin://shared/readme' }),
      expect.objectContaining({ type: 'resource', resource: expect.objectContaining({ uri: 'twin://items/7' }) }),
    ]);
    const prompt = await client.getPrompt({ name: 'with_resource' });
    expect(prompt.messages[0]?.content).toMatchObject({ type: 'resource', resource: { uri: 'twin://shared/readme' } });
  });

  it('serves several HTTP clients at once, each in its own session', async () => {
    const upstream = await startHttpFixture('twin-server', { TWIN_LABEL: 'right' });
    try {
      const clients = await Promise.all([1, 2, 3].map(() => connectHttp(upstream.url)));
      const answers = await Promise.all(clients.map((client) => client.callTool({ name: 'whoami' })));
      expect(answers.map(textOf)).toEqual(['right', 'right', 'right']);
    } finally {
      await upstream.stop();
    }
  });
});

describe('odd-names-server', () => {
  it('lists its tool and prompt names exactly as they are', async () => {
    const client = await connectStdio(stdioFixture('odd-names-server'));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(Object.values(ODD_TOOL_NAMES));
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual([ODD_PROMPT_NAME]);
  });

  it('has names that a gateway has to rewrite', () => {
    expect(ODD_TOOL_NAMES.long70).toHaveLength(70);
    expect(ODD_TOOL_NAMES.unicode100).toHaveLength(100);
    expect(ODD_TOOL_NAMES.sharedPrefixOne.slice(0, 60)).toBe(ODD_TOOL_NAMES.sharedPrefixTwo.slice(0, 60));
  });

  it('answers each tool with its own name', async () => {
    const client = await connectStdio(stdioFixture('odd-names-server'));
    for (const name of Object.values(ODD_TOOL_NAMES)) {
      expect(textOf(await client.callTool({ name }))).toBe(name);
    }
  });
});

describe('silent-server', () => {
  const timedOut = { code: SdkErrorCode.RequestTimeout };

  it('never answers tools/call or resources/read, but still answers ping and lists', async () => {
    const client = await connectStdio(stdioFixture('silent-server'));
    await expect(client.callTool({ name: 'wait_forever' }, { timeout: SILENCE_MS })).rejects.toMatchObject(timedOut);
    await expect(client.readResource({ uri: 'silent://void' }, { timeout: SILENCE_MS })).rejects.toMatchObject(timedOut);
    expect(await client.ping()).toEqual({});
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['wait_forever']);
  });

  it('with SILENT_INIT=1 never answers initialize over stdio', async () => {
    const transport = new StdioClientTransport(stdioFixture('silent-server', { SILENT_INIT: '1' }));
    // Nothing tells us when a stdio child is up, and starting one takes ~0.5 s: wait well past that.
    await expect(connect(transport, { timeout: 4 * SILENCE_MS })).rejects.toMatchObject(timedOut);
  });

  it('with SILENT_INIT=1 never answers initialize over Streamable HTTP', async () => {
    const upstream = await startHttpFixture('silent-server', { SILENT_INIT: '1' });
    try {
      const transport = new StreamableHTTPClientTransport(new URL(upstream.url));
      await expect(connect(transport, { timeout: SILENCE_MS })).rejects.toMatchObject(timedOut);
    } finally {
      await upstream.stop();
    }
  });
});

describe('header-echo-server', () => {
  let upstream: HttpUpstream;
  beforeAll(async () => {
    upstream = await startHttpFixture('header-echo-server');
  });
  afterAll(() => upstream.stop());

  it('returns the HTTP headers of the tools/call request it received', async () => {
    const client = await connectHttp(upstream.url, { Authorization: 'Bearer fixture-token', 'X-Upstream-Key': 'k1' });
    const headers = JSON.parse(textOf(await client.callTool({ name: 'last_headers' }))) as Record<string, string>;
    expect(headers).toMatchObject({ authorization: 'Bearer fixture-token', 'x-upstream-key': 'k1' });
    expect(headers['mcp-session-id']).toBeTruthy();
  });

  it('shows that a header was not sent', async () => {
    const client = await connectHttp(upstream.url);
    const headers = JSON.parse(textOf(await client.callTool({ name: 'last_headers' }))) as Record<string, string>;
    expect(headers).not.toHaveProperty('authorization');
  });
});

describe('server-everything', () => {
  let upstream: HttpUpstream;
  beforeAll(async () => {
    upstream = await startEverythingHttp();
  });
  afterAll(() => upstream.stop());

  it('answers tools/list over Streamable HTTP on its loopback port', async () => {
    expect(new URL(upstream.url).hostname).toBe('127.0.0.1');
    const client = await connectHttp(upstream.url);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('echo');
  });

  const externalAddress = Object.values(networkInterfaces())
    .flat()
    .find((address) => address !== undefined && address.family === 'IPv4' && !address.internal)?.address;

  it.skipIf(externalAddress === undefined)('cannot be reached on a non-loopback address', async () => {
    const { port } = new URL(upstream.url);
    const outcome = await new Promise<string>((resolve) => {
      const socket = connectTcp(Number(port), externalAddress!);
      socket.once('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    expect(outcome).toBe('ECONNREFUSED');
  });

  it('runs over stdio', async () => {
    const client = await connectStdio(everythingStdio());
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('echo');
  });
});

describe('server-memory', () => {
  it('keeps its graph in the temporary file it was given', async () => {
    const upstream = memoryStdio();
    const client = await connectStdio(upstream);
    await client.callTool({
      name: 'create_entities',
      arguments: { entities: [{ name: 'switchboard', entityType: 'project', observations: ['a gateway'] }] },
    });
    const memoryFile = upstream.env.MEMORY_FILE_PATH!;
    expect(memoryFile.startsWith(tmpdir())).toBe(true);
    expect(existsSync(memoryFile)).toBe(true);
  });
});

describe('bind-loopback.mjs', () => {
  it('binds every listen without a host to 127.0.0.1, and leaves pipe paths alone', async () => {
    const fixtures = new URL('../fixtures/', import.meta.url);
    const pipePath = join(tmpdir(), `bind-loopback-${process.pid}.sock`);
    const { stdout } = await promisify(execFile)(process.execPath, [
      '--import',
      new URL('bind-loopback.mjs', fixtures).href,
      fileURLToPath(new URL('listen-forms.mjs', fixtures)),
      pipePath,
    ]);
    expect(JSON.parse(stdout)).toEqual({
      port: '127.0.0.1',
      portAsString: '127.0.0.1',
      portAndBacklog: '127.0.0.1',
      options: '127.0.0.1',
      callbackOnly: '127.0.0.1',
      httpServer: '127.0.0.1',
      pipe: pipePath,
    });
  });
});
