// Tool overrides (mcpServers.<name>.tools) through the official v2 client in both eras: a 2025
// session and stateless 2026-07-28 requests see the same renamed, re-described, annotated and
// hidden tools; a call to a new name reaches the upstream under its own; a hidden tool fails as an
// unknown one; and all of it holds when the upstream changes its list and when the config reloads.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import type { ConfigInput } from '../../src/config/schema.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { connectModern } from '../support/modern-client.js';
import { connectRecordingClient, firstText, type RecordingClient } from '../support/recording-client.js';
import { stdioFixture } from '../support/upstreams.js';

const interactive = stdioFixture('interactive-server');
const twin = stdioFixture('twin-server', { TWIN_LABEL: 'left' });

const CONFIG: ConfigInput = {
  mcpServers: {
    interactive: {
      ...interactive,
      tools: {
        progress: { name: 'run_steps', title: 'Run steps', description: 'Counts to a number, reporting each step' },
        log_levels: { annotations: { readOnlyHint: true, title: 'Log at every level' } },
        slow: { hidden: true },
        // Not listed yet: add_tool brings them at run time.
        late_tool: { name: 'arrived_late', description: 'Renamed before it existed' },
        late_hidden: { hidden: true },
      },
    },
    twin: { ...twin, tools: { whoami: { name: 'who_answers' } } },
  },
};

/** After the reload: other overrides for the same upstreams. */
const RELOADED: ConfigInput = {
  mcpServers: {
    interactive: {
      ...interactive,
      tools: {
        progress: { name: 'step_runner' },
        late_tool: { name: 'arrived_late', description: 'Renamed before it existed' },
        late_hidden: { hidden: true },
      },
    },
    twin,
  },
};

interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  annotations?: Record<string, unknown>;
  inputSchema?: unknown;
}

interface CallOutcome {
  text?: string;
  error?: { code: number; message: string };
}

/** What the tests do, the same way in each era. */
interface EraClient {
  readonly era: '2025' | '2026';
  listTools(): Promise<ListedTool[]>;
  callTool(name: string, args?: Record<string, unknown>): Promise<CallOutcome>;
  /** How many tools/list_changed it has heard. */
  readonly toolChanges: () => number;
}

async function outcome(call: () => Promise<unknown>): Promise<CallOutcome> {
  try {
    return { text: firstText(await call()) };
  } catch (error) {
    const { code, message } = error as { code: number; message: string };
    return { error: { code, message } };
  }
}

function legacyEra(recording: RecordingClient): EraClient {
  return {
    era: '2025',
    listTools: async () => (await recording.client.listTools()).tools as ListedTool[],
    callTool: (name, args = {}) => outcome(() => recording.client.callTool({ name, arguments: args })),
    toolChanges: () => recording.received('notifications/tools/list_changed').length,
  };
}

async function modernEra(client: Client): Promise<EraClient> {
  let changes = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => void (changes += 1));
  // Pinned to 2026-07-28: every request below is stateless, with no session behind it.
  expect(client.getProtocolEra()).toBe('modern');
  await client.listen({ toolsListChanged: true });
  return {
    era: '2026',
    listTools: async () => (await client.listTools(undefined, { cacheMode: 'bypass' })).tools as ListedTool[],
    callTool: (name, args = {}) => outcome(() => client.callTool({ name, arguments: args })),
    toolChanges: () => changes,
  };
}

let gateway: TestGateway;
let recording: RecordingClient;
let modern: Client;
let eras: EraClient[];
const byName = async (era: EraClient) => new Map((await era.listTools()).map((tool) => [tool.name, tool]));
const names = async (era: EraClient) => [...(await byName(era)).keys()];
/** The same error with the name taken out: what tells an unknown tool from a hidden one, if anything. */
const anonymous = ({ error }: CallOutcome, name: string) => error && { code: error.code, message: error.message.replaceAll(name, '<name>') };

beforeAll(async () => {
  gateway = await startGateway(CONFIG, { reloadable: true });
  recording = await connectRecordingClient(gateway.url);
  modern = await connectModern(gateway.url);
  eras = [legacyEra(recording), await modernEra(modern)];
  // On a busy machine an upstream may take longer to start than initialize waits for.
  await vi.waitFor(async () => expect(await names(eras[0]!)).toEqual(expect.arrayContaining(['run_steps', 'who_answers'])), { timeout: 30_000, interval: 200 });
}, 60_000);

afterAll(async () => {
  await Promise.allSettled([recording?.close(), modern?.close()]);
  await gateway?.close();
});

describe.each(['2025', '2026'] as const)('a %s client, as configured', (name) => {
  const era = () => eras.find((candidate) => candidate.era === name)!;

  it('lists a renamed tool under exactly its new name, with its title and description, and the upstream\'s schema', async () => {
    const tools = await byName(era());
    expect(tools.has('interactive__progress')).toBe(false);
    expect(tools.get('run_steps')).toMatchObject({
      title: 'Run steps',
      description: 'Counts to a number, reporting each step',
      inputSchema: { properties: { steps: { type: 'integer' } } },
    });
    expect(tools.has('who_answers')).toBe(true);
    expect(tools.has('twin__whoami')).toBe(false);
  });

  it('lists annotations laid over the upstream\'s, the description untouched', async () => {
    const tool = (await byName(era())).get('interactive__log_levels');
    expect(tool?.annotations).toMatchObject({ readOnlyHint: true, title: 'Log at every level' });
    expect(tool?.description).toBe('Logs one message at each level during the call');
  });

  it('does not list a hidden tool', async () => {
    expect(await names(era())).not.toContain('interactive__slow');
  });

  it('calls a renamed tool under the upstream\'s own name', async () => {
    expect(await era().callTool('run_steps', { steps: 2 })).toEqual({ text: '2 steps done' });
    expect(await era().callTool('who_answers')).toEqual({ text: 'left' });
    const audit = gateway.logs.filter((line) => line.audit === true && line.method === 'tools/call' && line.server === 'twin');
    expect(audit.at(-1)).toMatchObject({ name: 'whoami', outcome: 'ok' });
  });

  it('answers a call of a hidden tool, or of a renamed tool\'s old name, exactly as one of an unknown tool', async () => {
    const unknown = anonymous(await era().callTool('interactive__no_such_tool', { ms: 1, tag: 'x' }), 'interactive__no_such_tool');
    expect(unknown?.code).toBe(-32602);
    expect(anonymous(await era().callTool('interactive__slow', { ms: 1, tag: 'x' }), 'interactive__slow')).toEqual(unknown);
    expect(anonymous(await era().callTool('interactive__progress', { steps: 1 }), 'interactive__progress')).toEqual(unknown);
  });
});

describe('when the upstream changes its list', () => {
  it('applies the overrides to the tools it adds, and keeps the others', async () => {
    const warned = () => gateway.logs.filter((line) => line.level === 'warn' && line.server === 'interactive' && line.tool === 'late_tool');
    expect(warned()).toHaveLength(1);
    const before = eras.map((era) => era.toolChanges());
    expect(await eras[0]!.callTool('interactive__add_tool', { name: 'late_tool' })).toEqual({ text: 'added late_tool' });
    expect(await eras[1]!.callTool('interactive__add_tool', { name: 'late_hidden' })).toEqual({ text: 'added late_hidden' });
    for (const [index, era] of eras.entries()) {
      await expect.poll(() => era.toolChanges(), { timeout: 10_000 }).toBeGreaterThan(before[index]!);
      await expect.poll(() => names(era), { timeout: 10_000 }).toContain('arrived_late');
      const tools = await byName(era);
      expect(tools.get('arrived_late')?.description).toBe('Renamed before it existed');
      expect(tools.has('interactive__late_tool')).toBe(false);
      expect(tools.has('interactive__late_hidden')).toBe(false);
      expect(tools.get('run_steps')?.title).toBe('Run steps');
      expect(tools.has('interactive__slow')).toBe(false);
      expect(await era.callTool('arrived_late')).toEqual({ text: 'late_tool answers' });
    }
    expect(warned()).toHaveLength(1);
  });
});

describe('after a config reload', () => {
  it('shows the new overrides without restarting the upstream, and tells both eras the list changed', async () => {
    const before = eras.map((era) => era.toolChanges());
    gateway.rewriteConfig(RELOADED);
    for (const [index, era] of eras.entries()) {
      await expect.poll(() => era.toolChanges(), { timeout: 20_000 }).toBeGreaterThan(before[index]!);
      const tools = await byName(era);
      expect(tools.has('step_runner'), era.era).toBe(true);
      expect(tools.has('run_steps')).toBe(false);
      expect(tools.has('interactive__slow')).toBe(true);
      expect(tools.get('interactive__log_levels')?.annotations?.readOnlyHint).not.toBe(true);
      expect(tools.has('twin__whoami')).toBe(true);
      expect(tools.has('who_answers')).toBe(false);
      // add_tool's tools live in the upstream's process: still there, so it was not restarted.
      expect(tools.get('arrived_late')?.description).toBe('Renamed before it existed');
      expect(await era.callTool('step_runner', { steps: 1 })).toEqual({ text: '1 steps done' });
      expect((await era.callTool('run_steps', { steps: 1 })).error?.code).toBe(-32602);
    }
    expect(gateway.logs.filter((line) => line.msg === 'config reloaded').at(-1)).toMatchObject({ added: [], removed: [], changed: [] });
  });
});
