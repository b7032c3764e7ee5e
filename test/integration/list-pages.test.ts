// Lists are one page unless `lists.pageSize` is set: clients that read only the first page of a
// list (mcp-use, MCPJam, the Inspector CLI) must see every tool of an aggregated catalogue, and
// clients that page must still reach every item when an operator sets a page size. Both eras.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../src/config/schema.js';
import { PAGED_COUNTS } from '../fixtures/paged-catalog.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { connect, type SdkGeneration } from '../support/mcp-clients.js';
import { connectModern } from '../support/modern-client.js';
import { envelope, modernPost, modernRequest } from '../support/modern-http.js';
import { listAll } from '../support/paging.js';
import { openSession, rawPost } from '../support/raw-http.js';
import { stdioFixture } from '../support/upstreams.js';

const MANY_TOOLS = fileURLToPath(new URL('../fixtures/many-tools.mjs', import.meta.url));
const MANY = 150;
const TOOLS = MANY + PAGED_COUNTS.tools;
const PAGE_SIZE = 40;

const LISTS = [
  ['tools/list', 'tools', TOOLS],
  ['prompts/list', 'prompts', PAGED_COUNTS.prompts],
  ['resources/list', 'resources', PAGED_COUNTS.resources],
  ['resources/templates/list', 'resourceTemplates', PAGED_COUNTS.resourceTemplates],
] as const;

// 150 tools from one server, and a server whose own lists come in pages of 10.
function config(lists?: ConfigInput['lists']): ConfigInput {
  return {
    mcpServers: {
      many: { command: process.execPath, args: [MANY_TOOLS], env: { TOOL_COUNT: String(MANY) } },
      paged: stdioFixture('paged-server'),
    },
    ...(lists && { lists }),
  };
}

let onePage: TestGateway;
let paged: TestGateway;

beforeAll(async () => {
  [onePage, paged] = await Promise.all([startGateway(config()), startGateway(config({ pageSize: PAGE_SIZE }))]);
}, 60_000);
afterAll(async () => {
  await Promise.allSettled([onePage?.close(), paged?.close()]);
});

async function legacyPage(url: string, method: string, cursor?: string): Promise<Record<string, unknown>> {
  const { sessionId } = await openSession(url);
  const { body } = await rawPost(url, { jsonrpc: '2.0', id: 2, method, params: cursor === undefined ? {} : { cursor } }, { sessionId });
  return (body as { result: Record<string, unknown> }).result;
}

async function modernPage(url: string, method: string, cursor?: string): Promise<Record<string, unknown>> {
  const { body } = await modernPost(url, modernRequest(method, cursor === undefined ? {} : { cursor }, envelope()));
  return (body as { result: Record<string, unknown> }).result;
}

describe('without lists.pageSize', () => {
  it.each(LISTS)('answers %s with the whole list in one page, without a cursor (2025, raw)', async (method, key, count) => {
    const result = await legacyPage(onePage.url, method);
    expect(result[key]).toHaveLength(count);
    expect(result).not.toHaveProperty('nextCursor');
  });

  it.each(LISTS)('answers %s with the whole list in one page, with its cache hints (2026, raw)', async (method, key, count) => {
    const result = await modernPage(onePage.url, method);
    expect(result[key]).toHaveLength(count);
    expect(result).not.toHaveProperty('nextCursor');
    expect(result).toMatchObject({ resultType: 'complete', cacheScope: 'public', ttlMs: expect.any(Number) });
  });

  it.each(['v1', 'v2'] as const)('gives the %s SDK client every tool in the first page it reads', async (generation: SdkGeneration) => {
    const client = await connect(generation, onePage.url);
    try {
      const first = await client.request('tools/list', {});
      const names = (first.tools as { name: string }[]).map((tool) => tool.name);
      expect(new Set(names).size).toBe(TOOLS);
      expect(names).toContain(`many__tool_${MANY}`);
      expect(first.nextCursor).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('gives a 2026 client every tool in the first page it reads', async () => {
    const client = await connectModern(onePage.url);
    try {
      const first = await client.listTools();
      expect(first.tools).toHaveLength(TOOLS);
      expect(first.nextCursor).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});

describe('with lists.pageSize', () => {
  it.each(LISTS)('answers %s in pages of the size set, the first with a cursor when there is more (both eras)', async (method, key, count) => {
    for (const result of [await legacyPage(paged.url, method), await modernPage(paged.url, method)]) {
      expect(result[key]).toHaveLength(Math.min(count, PAGE_SIZE));
      if (count > PAGE_SIZE) expect(result.nextCursor).toEqual(expect.any(String));
      else expect(result).not.toHaveProperty('nextCursor');
    }
  });

  it.each(['v1', 'v2'] as const)('lets the %s SDK client page through every item of every list', async (generation: SdkGeneration) => {
    const client = await connect(generation, paged.url);
    try {
      for (const [method, key, count] of LISTS) {
        const items = await listAll(client, method, key);
        const ids = items.map((item) => String(item.name ?? item.uri));
        expect(new Set(ids).size).toBe(count);
      }
    } finally {
      await client.close();
    }
  });

  it('lets a 2026 client page through every tool, each page with its cache hints', async () => {
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const result = await modernPage(paged.url, 'tools/list', cursor);
      expect(result).toMatchObject({ resultType: 'complete', ttlMs: expect.any(Number) });
      names.push(...(result.tools as { name: string }[]).map((tool) => tool.name));
      cursor = result.nextCursor as string | undefined;
      pages += 1;
    } while (cursor !== undefined);
    expect(pages).toBe(Math.ceil(TOOLS / PAGE_SIZE));
    expect(new Set(names).size).toBe(TOOLS);
  });
});

describe('a reload that sets lists.pageSize', () => {
  let gateway: TestGateway;
  const manyOnly: ConfigInput = { mcpServers: { many: config().mcpServers!.many! } };

  beforeAll(async () => {
    gateway = await startGateway(manyOnly, { reloadable: true });
  }, 60_000);
  afterAll(async () => gateway?.close());

  it('pages the lists from then on, without a restart', async () => {
    expect((await legacyPage(gateway.url, 'tools/list')).tools).toHaveLength(MANY);
    gateway.rewriteConfig({ ...manyOnly, lists: { pageSize: PAGE_SIZE } });
    await expect.poll(async () => ((await legacyPage(gateway.url, 'tools/list')).tools as unknown[]).length, { timeout: 15_000 }).toBe(PAGE_SIZE);
    expect(await modernPage(gateway.url, 'tools/list')).toMatchObject({ nextCursor: expect.any(String) });
  });
});
