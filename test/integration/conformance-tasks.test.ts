// The official conformance suite's tasks-* scenarios (2026-07-28's io.modelcontextprotocol/tasks
// extension, SEP-2663) through the gateway, with each kind of upstream that has tasks, exposed without
// a prefix so the scenarios find their fixed tool names:
//   - a 2026-07-28 upstream with the extension (test/fixtures/modern-tasks-server.ts), passed through;
//   - a 2025 upstream's experimental tasks (test/fixtures/tasks-server.ts), bridged: its questions
//     for a task (requests of its own, delivered on tasks/result) become the task's inputRequests,
//     answered with tasks/update (gateway/tasks/task-inbox.ts), and a question it asks before it
//     makes the task reaches the client as a multi round-trip.
// Each scenario must pass every check, including a task's input requests and tasks/update
// (tasks-mrtr-input), MRTR before the task is created (tasks-mrtr-composition) and the dispatch
// rules (tasks-dispatch-and-envelope). tasks-status-notifications is left out: the suite itself
// skips it.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformanceSuite, suiteSummary, type SuiteRun } from '../support/conformance-cli.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { nodeForConformance } from '../support/node-for-conformance.js';
import { stdioFixture } from '../support/upstreams.js';

const CLI = createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance-2026/dist/index.js');
const SCENARIOS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-required-task-error',
  'tasks-request-headers',
  'tasks-mrtr-input',
  'tasks-mrtr-composition',
  'tasks-dispatch-and-envelope',
];

const UPSTREAMS = [
  { era: 'a 2026-07-28 upstream with the tasks extension, passed through', fixture: 'modern-tasks-server' },
  { era: 'a 2025 upstream with experimental tasks, bridged', fixture: 'tasks-server' },
] as const;

describe.each(UPSTREAMS)('the conformance suite tasks-* scenarios through the gateway, with $era', ({ fixture }) => {
  let gateway: TestGateway;
  let workDir: string;
  const runs = new Map<string, SuiteRun>();

  beforeAll(async () => {
    gateway = await startGateway({ mcpServers: { jobs: { ...stdioFixture(fixture), prefix: '' } } });
    workDir = mkdtempSync(join(tmpdir(), 'switchboard-conformance-tasks-'));
    const node = nodeForConformance();
    for (const scenario of SCENARIOS) {
      runs.set(scenario, await runConformanceSuite({ node, cli: CLI, url: gateway.url, workDir, label: scenario, selection: ['--scenario', scenario], timeoutMs: 120_000 }));
    }
  }, 600_000);

  afterAll(async () => {
    await gateway?.close();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it.each(SCENARIOS)('%s passes every check', (scenario) => {
    const run = runs.get(scenario)!;
    expect(run.checks.get(scenario)?.length, suiteSummary(run)).toBeGreaterThan(0);
    const failed = [...run.checks.values()].flat().filter((check) => check.status !== 'SUCCESS').map(({ id, status, errorMessage }) => ({ id, status, errorMessage }));
    expect(failed, suiteSummary(run)).toEqual([]);
  });
});
