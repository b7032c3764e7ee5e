// Everything every upstream offers is reachable through the gateway by its exposed name, and gives
// what the upstream itself gives. Real upstreams (server-everything over stdio and over Streamable
// HTTP, server-memory, fixtures of ours), the official clients, both session stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../src/config/schema.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { connect, connectDirect, type SdkGeneration, type TestClient } from '../support/mcp-clients.js';
import { listAll } from '../support/paging.js';
import { redisUrl } from '../support/redis.js';
import { exposedUri, exposeResultUris, withoutVolatileValues as stable } from '../support/exposed-uris.js';
import { sampleArguments } from '../support/sample-arguments.js';
import {
  everythingStdio,
  memoryStdio,
  startEverythingHttp,
  stdioFixture,
  type HttpUpstream,
  type StdioUpstream,
} from '../support/upstreams.js';

// What a function-calling API accepts, within namespace.maxNameLength (48 by default).
const TOOL_NAME = /^[A-Za-z0-9_-]{1,48}$/;
const SILENT_TIMEOUT_MS = 1_000;

/** Arguments for server-everything's tools that a schema cannot guess (no network, short waits). */
const EVERYTHING_TOOL_ARGUMENTS: Record<string, Record<string, unknown>> = {
  'gzip-file-as-resource': { name: 'hello.txt.gz', data: 'data:text/plain;base64,aGVsbG8gd29ybGQ=' },
  'trigger-long-running-operation': { duration: 0.2, steps: 2 },
  'get-structured-content': { location: 'Chicago' },
  'get-annotated-message': { messageType: 'success' },
};
const EVERYTHING_PROMPT_ARGUMENTS: Record<string, Record<string, string>> = {
  'args-prompt': { city: 'Lisbon', state: 'LX' },
  'completable-prompt': { department: 'Engineering', name: 'Alice' },
  'resource-prompt': { resourceType: 'Text', resourceId: '2' },
};
/** Tools whose answers depend on the process or the moment, not on the call. */
const UNREPEATABLE_TOOLS = new Set(['get-env']);
/**
 * Tools that must be called as a task (execution.taskSupport "required"): a plain call is refused
 * with -32601, as the spec says a server must (test/integration/tasks.test.ts runs them as tasks).
 */
const TASK_REQUIRED_TOOLS = new Set(['simulate-research-query']);
/**
 * server-everything keeps session resources in one map per process, so over HTTP (one process for
 * the gateway's session and the direct client's) a second gzip call with the same file name
 * unregisters the first session's resource. Only the gateway calls it there.
 */
const PROCESS_SHARED_TOOLS = new Set(['remote/gzip-file-as-resource']);
/**
 * Tools that ask the client for sampling, elicitation or roots: their answer depends on the client
 * (these test clients declare none of it), so they are only checked to answer; the streams tests
 * relay these requests to clients that can answer them.
 */
const CLIENT_DEPENDENT_TOOLS = new Set(['get-roots-list', 'trigger-elicitation-request', 'trigger-url-elicitation', 'trigger-sampling-request']);

interface Upstreams {
  readonly everythingHttp: HttpUpstream;
  readonly specs: Record<string, (StdioUpstream & { timeoutMs?: number }) | { url: string }>;
}

async function startUpstreams(): Promise<Upstreams> {
  const everythingHttp = await startEverythingHttp();
  return {
    everythingHttp,
    specs: {
      everything: everythingStdio(),
      remote: { url: everythingHttp.url },
      memory: memoryStdio(),
      paged: stdioFixture('paged-server'),
      left: stdioFixture('twin-server', { TWIN_LABEL: 'left' }),
      right: stdioFixture('twin-server', { TWIN_LABEL: 'right' }),
      odd: stdioFixture('odd-names-server'),
      // Lists, but never answers a call or a read: the gateway must say so, by name, in time.
      silent: { ...stdioFixture('silent-server'), timeoutMs: SILENT_TIMEOUT_MS },
    },
  };
}

function gatewayConfig(specs: Upstreams['specs'], store: 'memory' | 'redis'): ConfigInput {
  return {
    sessions: store === 'redis' ? { store: 'redis', redisUrl: redisUrl() } : { store: 'memory' },
    mcpServers: Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, { ...spec }])),
  };
}

describe.each(['memory', 'redis'] as const)('through the gateway with the %s session store', (store) => {
  let upstreams: Upstreams;
  let gateway: TestGateway;
  const direct = new Map<string, TestClient>();

  beforeAll(async () => {
    upstreams = await startUpstreams();
    gateway = await startGateway(gatewayConfig(upstreams.specs, store), { pageSize: 10 });
    await Promise.all(
      Object.entries(upstreams.specs).map(async ([name, spec]) => direct.set(name, await connectDirect(spec))),
    );
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...direct.values()].map((client) => client.close()));
    await gateway?.close();
    await upstreams?.everythingHttp.stop();
  });

  describe.each(['v1', 'v2'] as const)('with the %s client SDK', (generation: SdkGeneration) => {
    let client: TestClient;
    beforeAll(async () => {
      client = await connect(generation, gateway.url);
    });
    afterAll(async () => client?.close());

    it('lists every upstream tool under a valid, unique exposed name', async () => {
      const tools = await listAll(client, 'tools/list', 'tools');
      const names = tools.map((tool) => String(tool.name));
      expect(new Set(names).size).toBe(names.length);
      for (const name of names) expect(name).toMatch(TOOL_NAME);
      let upstreamTotal = 0;
      for (const [server, upstream] of direct) {
        const own = await listAll(upstream, 'tools/list', 'tools');
        upstreamTotal += own.length;
        for (const tool of own) {
          const natural = `${server}__${String(tool.name)}`;
          if (TOOL_NAME.test(natural)) expect(names).toContain(natural);
        }
      }
      expect(names).toHaveLength(upstreamTotal);
    });

    it('joins the pages of every list into the whole list, without duplicates', async () => {
      for (const [method, key, identity] of [
        ['tools/list', 'tools', 'name'],
        ['prompts/list', 'prompts', 'name'],
        ['resources/list', 'resources', 'uri'],
        ['resources/templates/list', 'resourceTemplates', 'uriTemplate'],
      ] as const) {
        const pages: Record<string, unknown>[][] = [];
        let cursor: string | undefined;
        do {
          const page = await client.request(method, cursor === undefined ? {} : { cursor });
          pages.push(page[key] as Record<string, unknown>[]);
          cursor = page.nextCursor as string | undefined;
        } while (cursor !== undefined);
        const items = pages.flat().filter(isSameInEverySession);
        const ids = items.map((item) => String(item[identity]));
        expect(new Set(ids).size, `${method} has duplicates`).toBe(ids.length);
        let expected = 0;
        for (const upstream of direct.values()) expected += (await listAll(upstream, method, key)).filter(isSameInEverySession).length;
        expect(items, method).toHaveLength(expected);
        if (expected > 10) expect(pages.length, `${method} should span pages`).toBeGreaterThan(1);
      }
    });

    it('calls every tool of every upstream by its exposed name with the upstream result', async () => {
      const exposed = await listAll(client, 'tools/list', 'tools');
      const byOrigin = await exposedToolsByOrigin(exposed);
      for (const [server, upstream] of direct) {
        for (const tool of await listAll(upstream, 'tools/list', 'tools')) {
          const name = String(tool.name);
          const exposedName = byOrigin.get(`${server}/${name}`);
          expect(exposedName, `${server}/${name} is exposed`).toBeDefined();
          const args =
            server === 'everything' || server === 'remote'
              ? (EVERYTHING_TOOL_ARGUMENTS[name] ?? sampleArguments(tool.inputSchema))
              : sampleArguments(tool.inputSchema);
          const viaGateway = await settle(client.request('tools/call', { name: exposedName, arguments: args }));
          if (TASK_REQUIRED_TOOLS.has(name)) {
            expect(viaGateway.ok ? 'answered' : (viaGateway as { error: { code: number } }).error.code, `${server}/${name}`).toBe(-32601);
            continue;
          }
          if (server === 'silent') {
            expect(viaGateway.ok ? 'answered' : String((viaGateway as { error: Error }).error.message)).toMatch(/"silent" did not answer/);
            continue;
          }
          const everything = server === 'everything' || server === 'remote';
          if ((everything && (UNREPEATABLE_TOOLS.has(name) || CLIENT_DEPENDENT_TOOLS.has(name))) || PROCESS_SHARED_TOOLS.has(`${server}/${name}`)) {
            expect(viaGateway.ok, `${server}/${name}`).toBe(true);
            continue;
          }
          const viaUpstream = await settle(upstream.request('tools/call', { name, arguments: args }));
          expect(viaGateway.ok, `${server}/${name}`).toBe(viaUpstream.ok);
          if (viaUpstream.ok && viaGateway.ok) {
            expect(stable(viaGateway.value), `${server}/${name}`).toEqual(stable(exposeResultUris(viaUpstream.value, server)));
          }
        }
      }
    });

    it('gets every prompt of every upstream by its exposed name with the upstream result', async () => {
      const exposed = await listAll(client, 'prompts/list', 'prompts');
      for (const [server, upstream] of direct) {
        for (const prompt of await listAll(upstream, 'prompts/list', 'prompts')) {
          const name = String(prompt.name);
          // Prompt names are not held to the tool-name rule: each keeps {prefix}__{name}.
          const exposedName = `${server}__${name}`;
          expect(exposed.map((candidate) => candidate.name)).toContain(exposedName);
          const args = EVERYTHING_PROMPT_ARGUMENTS[name] ?? promptArguments(prompt.arguments);
          const viaGateway = await client.request('prompts/get', { name: exposedName, arguments: args });
          const viaUpstream = await upstream.request('prompts/get', { name, arguments: args });
          expect(stable(viaGateway), `${server}/${name}`).toEqual(stable(exposeResultUris(viaUpstream, server)));
        }
      }
    });

    it('reads every listed resource of every upstream by its exposed URI with the upstream contents', async () => {
      const exposed = await listAll(client, 'resources/list', 'resources');
      const exposedUris = new Set(exposed.map((resource) => String(resource.uri)));
      for (const [server, upstream] of direct) {
        for (const resource of await listAll(upstream, 'resources/list', 'resources')) {
          const uri = exposedUri(server, String(resource.uri));
          expect(exposedUris, `${server} ${String(resource.uri)}`).toContain(uri);
          if (server === 'silent') {
            await expect(client.request('resources/read', { uri })).rejects.toThrow(/"silent" did not answer/);
            continue;
          }
          const viaGateway = await client.request('resources/read', { uri });
          const viaUpstream = await upstream.request('resources/read', { uri: resource.uri });
          expect(stable(viaGateway), uri).toEqual(stable(exposeResultUris(viaUpstream, server)));
        }
      }
    });

    it('reads a URI that any listed template expands to, from the upstream that owns the template', async () => {
      const exposed = await listAll(client, 'resources/templates/list', 'resourceTemplates');
      for (const [server, upstream] of direct) {
        for (const template of await listAll(upstream, 'resources/templates/list', 'resourceTemplates')) {
          const exposedTemplate = exposedUri(server, String(template.uriTemplate));
          expect(exposed.map((item) => item.uriTemplate)).toContain(exposedTemplate);
          const viaGateway = await client.request('resources/read', { uri: expand(exposedTemplate, '3') });
          const viaUpstream = await upstream.request('resources/read', { uri: expand(String(template.uriTemplate), '3') });
          expect(stable(viaGateway), exposedTemplate).toEqual(stable(exposeResultUris(viaUpstream, server)));
        }
      }
    });

    it('keeps two upstreams that list the same URI apart', async () => {
      const left = await client.request('resources/read', { uri: 'twin+left://shared/readme' });
      const right = await client.request('resources/read', { uri: 'twin+right://shared/readme' });
      expect(JSON.stringify(left)).toContain('left');
      expect(JSON.stringify(right)).toContain('right');
      expect(JSON.stringify(left)).not.toContain('right');
    });

    it('answers completion/complete for prompts and templates from the owning upstream', async () => {
      const prompts = await listAll(client, 'prompts/list', 'prompts');
      const leftGreet = prompts.find((prompt) => prompt.name === 'left__greet');
      expect(leftGreet).toBeDefined();
      const viaGateway = await client.request('completion/complete', {
        ref: { type: 'ref/prompt', name: 'right__greet' },
        argument: { name: 'name', value: '' },
      });
      const viaUpstream = await direct.get('right')?.request('completion/complete', {
        ref: { type: 'ref/prompt', name: 'greet' },
        argument: { name: 'name', value: '' },
      });
      expect(viaGateway).toEqual(viaUpstream);

      const templateViaGateway = await client.request('completion/complete', {
        ref: { type: 'ref/resource', uri: 'twin+left://items/{id}' },
        argument: { name: 'id', value: '' },
      });
      const templateViaUpstream = await direct.get('left')?.request('completion/complete', {
        ref: { type: 'ref/resource', uri: 'twin://items/{id}' },
        argument: { name: 'id', value: '' },
      });
      expect(templateViaGateway).toEqual(templateViaUpstream);
    });

    it('routes resources/subscribe and unsubscribe to the owning upstream', async () => {
      await expect(client.request('resources/subscribe', { uri: 'demo+everything://resource/static/document/features.md' })).resolves.toEqual({});
      await expect(client.request('resources/unsubscribe', { uri: 'demo+everything://resource/static/document/features.md' })).resolves.toEqual({});
    });

    it('answers ping and accepts logging/setLevel itself', async () => {
      await expect(client.request('ping')).resolves.toEqual({});
      await expect(client.request('logging/setLevel', { level: 'warning' })).resolves.toEqual({});
    });

    async function exposedToolsByOrigin(exposed: Record<string, unknown>[]): Promise<Map<string, string>> {
      // The odd-names fixture answers each call with its own upstream name, which maps rewritten
      // names back; every other tool keeps its natural name.
      const byOrigin = new Map<string, string>();
      for (const tool of exposed) {
        const name = String(tool.name);
        const separator = name.indexOf('__');
        const server = name.slice(0, separator);
        if (server === 'odd') {
          const answer = await client.request('tools/call', { name, arguments: {} });
          const text = (answer.content as { text: string }[])[0]?.text ?? '';
          byOrigin.set(`odd/${text}`, name);
        } else {
          byOrigin.set(`${server}/${name.slice(separator + 2)}`, name);
        }
      }
      return byOrigin;
    }
  });

  it('gives tools with unusable names valid, unique names that lead back to the right tool', async () => {
    const client = await connect('v2', gateway.url);
    try {
      const upstreamNames = (await listAll(direct.get('odd') as TestClient, 'tools/list', 'tools')).map((tool) => String(tool.name));
      const exposed = (await listAll(client, 'tools/list', 'tools')).filter((tool) => String(tool.name).startsWith('odd'));
      expect(exposed).toHaveLength(upstreamNames.length);
      const reached = new Set<string>();
      for (const tool of exposed) {
        expect(String(tool.name)).toMatch(TOOL_NAME);
        const answer = await client.request('tools/call', { name: tool.name, arguments: {} });
        reached.add((answer.content as { text: string }[])[0]?.text ?? '');
      }
      expect([...reached].sort()).toEqual([...upstreamNames].sort());
      // a_b is valid and keeps its name; a.b, which sanitises to the same thing, does not take it.
      const aB = exposed.find((tool) => tool.name === 'odd__a_b');
      expect(aB).toBeDefined();
      const answer = await client.request('tools/call', { name: 'odd__a_b', arguments: {} });
      expect((answer.content as { text: string }[])[0]?.text).toBe('a_b');
    } finally {
      await client.close();
    }
  });
});

/** Session resources of the HTTP server-everything differ between its sessions (see PROCESS_SHARED_TOOLS). */
function isSameInEverySession(item: Record<string, unknown>): boolean {
  return !String(item.uri ?? '').includes('/resource/session/');
}

function promptArguments(declared: unknown): Record<string, string> {
  if (!Array.isArray(declared)) return {};
  return Object.fromEntries(
    (declared as { name: string; required?: boolean }[]).filter((arg) => arg.required).map((arg) => [arg.name, 'x']),
  );
}

function expand(template: string, value: string): string {
  return template.replace(/\{[^}]*\}/g, value);
}

type Settled = { ok: true; value: Record<string, unknown> } | { ok: false; error: unknown };

async function settle(promise: Promise<Record<string, unknown>>): Promise<Settled> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}
