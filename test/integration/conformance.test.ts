// The official MCP conformance suite (@modelcontextprotocol/conformance, its server scenarios) run
// against a real gateway that fronts our conformance fixture, exposed without a prefix so the
// scenarios find the names they call. Every check of every active scenario must pass, and each
// scenario's details must show the fixture's own answer: several checks would also pass on an answer
// the gateway made up (a "tool not found" is an isError result with a text, which is all that
// tools-call-error looks at), so the test also asks the fixture what reached it. docs/conformance.md
// lists the scenarios and the one check that is informational here, with the reason.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ARG1_CANDIDATES, CALLS_TOOL, CONFORMANCE_TEXT } from '../fixtures/conformance-texts.js';
import { runConformanceSuite, suiteSummary, type CheckStatus, type ConformanceCheck, type SuiteRun } from '../support/conformance-cli.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { connectV2 } from '../support/mcp-clients.js';
import { openSession } from '../support/raw-http.js';
import { nodeForConformance } from '../support/node-for-conformance.js';
import { openSse, type SseEvent } from '../support/sse-reader.js';
import { stdioFixture } from '../support/upstreams.js';

/** The active server suite of @modelcontextprotocol/conformance 0.1.16 (all but its pending scenarios). */
const ACTIVE_SCENARIOS = [
  'server-initialize',
  'logging-set-level',
  'ping',
  'completion-complete',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-with-logging',
  'tools-call-error',
  'tools-call-with-progress',
  'tools-call-sampling',
  'tools-call-elicitation',
  'elicitation-sep1034-defaults',
  'server-sse-multiple-streams',
  'elicitation-sep1330-enums',
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'resources-subscribe',
  'resources-unsubscribe',
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
  'dns-rebinding-protection',
] as const;
type ActiveScenario = (typeof ACTIVE_SCENARIOS)[number];

/**
 * Checks that may end in a status other than SUCCESS, and why (docs/conformance.md says the same).
 * The gateway answers a request with plain JSON unless something related to it (progress, a log
 * message, a server-to-client request) must go out first; the spec lets a server answer a POST with
 * either. server-sse-multiple-streams POSTs tools/list, which has nothing related, so it gets JSON
 * and reports its stream check as INFO "SSE streaming is optional". The last test of this file
 * checks what that check would have: concurrent POST streams on one session.
 */
const NOT_SUCCESS_ALLOWED: Readonly<Record<string, { readonly status: CheckStatus; readonly reason: string }>> = {
  'server-sse-multiple-streams/server-sse-streams-functional': {
    status: 'INFO',
    reason: 'tools/list is answered as JSON (no SSE stream to check); concurrent SSE streams are tested below',
  },
};

/** What the suite's client answers to sampling and elicitation (in the scenarios' sources). */
const SUITE_SAMPLING_TEXT = 'This is a test response from the client';
const SUITE_ELICITATION_CONTENT = { username: 'testuser', email: 'test@example.com' };

const CLI_TIMEOUT_MS = 120_000;
const CONFORMANCE_CLI = createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/dist/index.js');

/** The 2025 suite (0.1.16) against `url`, through the CLI runner the 2026 test shares. */
function runSuite(node: string, url: string, workDir: string, label: string, selection: readonly string[]): Promise<SuiteRun> {
  return runConformanceSuite({ node, cli: CONFORMANCE_CLI, url, workDir, label, selection, timeoutMs: CLI_TIMEOUT_MS });
}


describe('the official MCP conformance suite (server scenarios), through the gateway', () => {
  let gateway: TestGateway;
  let workDir: string;
  let active: SuiteRun;
  let pending: SuiteRun;
  /** Handler name -> how many times it ran in the fixture, read right after the suite ran. */
  let fixtureCalls: Record<string, number>;

  beforeAll(async () => {
    const node = nodeForConformance();
    gateway = await startGateway({ mcpServers: { conformance: { ...stdioFixture('conformance-server'), prefix: '' } } });
    workDir = mkdtempSync(join(tmpdir(), 'switchboard-conformance-'));
    active = await runSuite(node, gateway.url, workDir, 'active', ['--suite', 'active']);
    // Pending in 0.1.16, so not in the active suite; cheap, and it is about what a gateway must keep intact.
    pending = await runSuite(node, gateway.url, workDir, 'pending', ['--scenario', 'json-schema-2020-12']);
    fixtureCalls = await readFixtureCalls(gateway.url);
  }, CLI_TIMEOUT_MS * 2 + 30_000);

  afterAll(async () => {
    await gateway?.close();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('ran exactly the active scenarios of the installed suite, and the suite reports no failure', () => {
    expect([...active.checks.keys()].sort(), suiteSummary(active)).toEqual([...ACTIVE_SCENARIOS].sort());
    expect(active.exitCode, suiteSummary(active)).toBe(0);
  });

  /** The scenario's checks that did not pass, with their details, for the failure message. */
  function unexpected(scenario: string, run: SuiteRun = active): ConformanceCheck[] {
    const checks = run.checks.get(scenario) ?? [];
    return checks.filter((check) => check.status !== 'SUCCESS' && NOT_SUCCESS_ALLOWED[`${scenario}/${check.id}`]?.status !== check.status);
  }

  function details(scenario: string, checkId: string, run: SuiteRun = active): NonNullable<ConformanceCheck['details']> {
    const check = run.checks.get(scenario)?.find((c) => c.id === checkId);
    expect(check, `${scenario} has no check ${checkId}`).toBeDefined();
    return check?.details ?? {};
  }

  function expectFixtureRan(handler: string): void {
    expect(fixtureCalls[handler] ?? 0, `the fixture's ${handler} never ran; calls: ${JSON.stringify(fixtureCalls)}`).toBeGreaterThanOrEqual(1);
  }

  /**
   * Per scenario: evidence, from its details or from the fixture's counts, that the check saw the
   * fixture's answer carried through the gateway. `initialize`, `ping` and `logging/setLevel` are
   * the gateway's own to answer.
   */
  const EVIDENCE: Record<ActiveScenario, () => void> = {
    'server-initialize': () => expect(details('server-initialize', 'server-initialize')).toMatchObject({ connected: true }),
    'logging-set-level': () => expect(details('logging-set-level', 'logging-set-level')).toEqual({ result: {} }),
    ping: () => expect(details('ping', 'ping')).toEqual({ result: {} }),
    'completion-complete': () => {
      const values = ARG1_CANDIDATES.filter((candidate) => candidate.startsWith('test'));
      expect(details('completion-complete', 'completion-complete')).toMatchObject({ result: { completion: { values } } });
      expectFixtureRan('complete arg1');
    },
    'tools-list': () => {
      const tools: string[] = details('tools-list', 'tools-list').tools;
      expect(tools).toEqual(expect.arrayContaining(SCENARIO_TOOLS));
    },
    'tools-call-simple-text': () => {
      expect(details('tools-call-simple-text', 'tools-call-simple-text')).toEqual({ result: { content: [{ type: 'text', text: CONFORMANCE_TEXT.simple }] } });
      expectFixtureRan('test_simple_text');
    },
    'tools-call-image': () => {
      expect(details('tools-call-image', 'tools-call-image')).toEqual({ mimeType: 'image/png', hasData: true });
      expectFixtureRan('test_image_content');
    },
    'tools-call-audio': () => {
      expect(details('tools-call-audio', 'tools-call-audio')).toMatchObject({ hasAudioContent: true, audioDataLength: 88 });
      expectFixtureRan('test_audio_content');
    },
    'tools-call-embedded-resource': () => {
      expect(details('tools-call-embedded-resource', 'tools-call-embedded-resource')).toEqual({ hasResourceContent: true, resourceUri: 'test://embedded-resource' });
      expectFixtureRan('test_embedded_resource');
    },
    'tools-call-mixed-content': () => {
      expect(details('tools-call-mixed-content', 'tools-call-mixed-content')).toEqual({ contentCount: 3, contentTypes: ['text', 'image', 'resource'] });
      expectFixtureRan('test_multiple_content_types');
    },
    'tools-call-with-logging': () => {
      const logs = CONFORMANCE_TEXT.logs.map((data) => ({ level: 'info', data }));
      expect(details('tools-call-with-logging', 'tools-call-with-logging')).toMatchObject({ logCount: 3, logs });
      expectFixtureRan('test_tool_with_logging');
    },
    'tools-call-error': () => {
      // The check itself passes on any isError result with a text, the gateway's "unknown tool" too.
      expect(details('tools-call-error', 'tools-call-error')).toEqual({ result: { isError: true, content: [{ type: 'text', text: CONFORMANCE_TEXT.error }] } });
      expectFixtureRan('test_error_handling');
    },
    'tools-call-with-progress': () => {
      const found = details('tools-call-with-progress', 'tools-call-with-progress');
      expect(found.progressNotifications).toMatchObject([0, 50, 100].map((progress) => ({ progress, total: 100 })));
      expectFixtureRan('test_tool_with_progress');
    },
    'tools-call-sampling': () => {
      const text = `${CONFORMANCE_TEXT.samplingPrefix}${SUITE_SAMPLING_TEXT}`;
      expect(details('tools-call-sampling', 'tools-call-sampling')).toEqual({ samplingRequested: true, result: { content: [{ type: 'text', text }] } });
      expectFixtureRan('test_sampling');
    },
    'tools-call-elicitation': () => {
      const text = `${CONFORMANCE_TEXT.elicitationPrefix}action=accept, content=${JSON.stringify(SUITE_ELICITATION_CONTENT)}`;
      expect(details('tools-call-elicitation', 'tools-call-elicitation')).toEqual({ elicitationRequested: true, result: { content: [{ type: 'text', text }] } });
      expectFixtureRan('test_elicitation');
    },
    'elicitation-sep1034-defaults': () => {
      const fields = ['name', 'age', 'score', 'status', 'verified'];
      const found = fields.map((field) => details('elicitation-sep1034-defaults', `elicitation-sep1034-${checkSuffix(field)}-default`).field);
      expect(found).toEqual(fields);
      expectFixtureRan('test_elicitation_sep1034_defaults');
    },
    'server-sse-multiple-streams': () => {
      expect(details('server-sse-multiple-streams', 'server-accepts-multiple-post-streams')).toMatchObject({ numStreamsAccepted: 3, statuses: [200, 200, 200] });
    },
    'elicitation-sep1330-enums': () => {
      const ids = ['untitled-single', 'titled-single', 'legacy-enumnames', 'untitled-multi', 'titled-multi'];
      for (const id of ids) expect(details('elicitation-sep1330-enums', `elicitation-sep1330-${id}`).schema).toBeDefined();
      expectFixtureRan('test_elicitation_sep1330_enums');
    },
    'resources-list': () => {
      const resources: string[] = details('resources-list', 'resources-list').resources;
      expect(resources).toEqual(expect.arrayContaining(['test://static-text', 'test://static-binary', 'test://watched-resource']));
    },
    'resources-read-text': () => {
      expect(details('resources-read-text', 'resources-read-text')).toEqual({ uri: 'test://static-text', mimeType: 'text/plain', hasText: true });
      expectFixtureRan('test://static-text');
    },
    'resources-read-binary': () => {
      expect(details('resources-read-binary', 'resources-read-binary')).toEqual({ uri: 'test://static-binary', mimeType: 'image/png', hasBlob: true });
      expectFixtureRan('test://static-binary');
    },
    'resources-templates-read': () => {
      const content = JSON.stringify({ id: '123', templateTest: true, data: 'Data for ID: 123' });
      expect(details('resources-templates-read', 'resources-templates-read')).toEqual({ uri: 'test://template/123/data', content });
      expectFixtureRan('test://template/{id}/data');
    },
    // The check records no details: the fixture's count is the evidence that the subscription went on.
    'resources-subscribe': () => expectFixtureRan('subscribe test://watched-resource'),
    // No details either; the gateway holds one upstream subscription per URI for all its sessions, and
    // the suite never ends its sessions, so the upstream is not told (docs/conformance.md).
    'resources-unsubscribe': () => expectFixtureRan('subscribe test://watched-resource'),
    'prompts-list': () => {
      const prompts: string[] = details('prompts-list', 'prompts-list').prompts;
      expect(prompts).toEqual(expect.arrayContaining(SCENARIO_PROMPTS));
    },
    'prompts-get-simple': () => {
      expect(details('prompts-get-simple', 'prompts-get-simple')).toEqual({ messageCount: 1 });
      expectFixtureRan('test_simple_prompt');
    },
    'prompts-get-with-args': () => {
      const text = "Prompt with arguments: arg1='testValue1', arg2='testValue2'";
      expect(details('prompts-get-with-args', 'prompts-get-with-args')).toEqual({ messageCount: 1, messages: [{ role: 'user', content: { type: 'text', text } }] });
      expectFixtureRan('test_prompt_with_arguments');
    },
    'prompts-get-embedded-resource': () => {
      const found = details('prompts-get-embedded-resource', 'prompts-get-embedded-resource');
      expect(found.messages?.[0]).toEqual({
        role: 'user',
        content: { type: 'resource', resource: { uri: 'test://example-resource', mimeType: 'text/plain', text: 'Embedded resource content for testing.' } },
      });
      expectFixtureRan('test_prompt_with_embedded_resource');
    },
    'prompts-get-with-image': () => {
      expect(details('prompts-get-with-image', 'prompts-get-with-image')).toEqual({ messageCount: 2 });
      expectFixtureRan('test_prompt_with_image');
    },
    'dns-rebinding-protection': () => {
      expect(details('dns-rebinding-protection', 'localhost-host-rebinding-rejected')).toMatchObject({ hostHeader: 'evil.example.com', statusCode: 403 });
      expect(details('dns-rebinding-protection', 'localhost-host-valid-accepted')).toMatchObject({ statusCode: 200, body: { result: { protocolVersion: '2025-11-25' } } });
    },
  };

  it.each(ACTIVE_SCENARIOS)('%s: every check passes, and its details show the fixture answered', (scenario) => {
    expect(active.checks.get(scenario), `no results for ${scenario}:\n${suiteSummary(active)}`).toBeDefined();
    expect(unexpected(scenario)).toEqual([]);
    EVIDENCE[scenario]();
  });

  it('json-schema-2020-12 (pending in the suite): the tool schema keeps $schema, $defs and additionalProperties', () => {
    expect(pending.checks.get('json-schema-2020-12'), suiteSummary(pending)).toBeDefined();
    expect(unexpected('json-schema-2020-12', pending)).toEqual([]);
    expect(details('json-schema-2020-12', 'json-schema-2020-12-$defs', pending)).toMatchObject({ defsKeys: ['address'] });
  });

  // What server-sse-multiple-streams would check if the gateway streamed tools/list (SEP-1699):
  // several POSTs of one session, each answered on its own SSE stream, at the same time.
  it('answers concurrent POSTs of one session on separate SSE streams, each with its own messages', async () => {
    const { sessionId } = await openSession(gateway.url);
    const streams = await Promise.all(
      [0, 1, 2].map((index) =>
        openSse(gateway.url, {
          method: 'POST',
          sessionId,
          body: { jsonrpc: '2.0', id: 100 + index, method: 'tools/call', params: { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: `stream-${index}` } } },
        }),
      ),
    );
    const events = await Promise.all(streams.map((stream) => readAll(stream)));

    const streamIds = new Set<string | undefined>();
    events.forEach((received, index) => {
      expect(streams[index]?.contentType).toMatch(/^text\/event-stream/);
      const [priming, ...messages] = received;
      expect(priming?.data, 'a priming event first').toBe('');
      streamIds.add(priming?.id?.split('.')[0]);
      expect(messages.map((event) => event.message)).toEqual([
        ...[0, 50, 100].map((progress) =>
          expect.objectContaining({ method: 'notifications/progress', params: expect.objectContaining({ progressToken: `stream-${index}`, progress }) }),
        ),
        expect.objectContaining({ id: 100 + index, result: expect.objectContaining({ content: [expect.objectContaining({ type: 'text' })] }) }),
      ]);
    });
    expect(streamIds.size).toBe(3);
  });
});

/** The tools and prompts the scenarios call by name. */
const SCENARIO_TOOLS = [
  'test_simple_text',
  'test_image_content',
  'test_audio_content',
  'test_embedded_resource',
  'test_multiple_content_types',
  'test_tool_with_logging',
  'test_tool_with_progress',
  'test_error_handling',
  'test_sampling',
  'test_elicitation',
  'test_elicitation_sep1034_defaults',
  'test_elicitation_sep1330_enums',
];
const SCENARIO_PROMPTS = ['test_simple_prompt', 'test_prompt_with_arguments', 'test_prompt_with_embedded_resource', 'test_prompt_with_image'];

/** SEP-1034 check ids name the field by its type. */
function checkSuffix(field: string): string {
  return { name: 'string', age: 'integer', score: 'number', status: 'enum', verified: 'boolean' }[field] ?? field;
}


async function readAll(stream: Awaited<ReturnType<typeof openSse>>): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for (let event = await stream.next(); event !== undefined; event = await stream.next()) events.push(event);
  return events;
}



async function readFixtureCalls(url: string): Promise<Record<string, number>> {
  const client = await connectV2(url);
  try {
    const result = (await client.request('tools/call', { name: CALLS_TOOL, arguments: {} })) as { content?: { text?: string }[] };
    return JSON.parse(result.content?.[0]?.text ?? '{}') as Record<string, number>;
  } finally {
    await client.close();
  }
}
