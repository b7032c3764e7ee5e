// The official conformance suite's tasks-* scenarios (2026-07-28's io.modelcontextprotocol/tasks
// extension, SEP-2663) through the gateway, which bridges them to a 2025 upstream's experimental
// tasks (test/fixtures/tasks-server.ts, exposed without a prefix so the scenarios find greet,
// slow_compute, failing_job and protocol_error_job). Each scenario below must pass every check. Not
// run: tasks-mrtr-input and tasks-mrtr-composition (a task's input requests and tasks/update, which
// the gateway does not bridge yet, and fixtures of their own), tasks-dispatch-and-envelope (it also
// needs tasks/update), and tasks-status-notifications (the suite itself skips it).
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
const SCENARIOS = ['tasks-lifecycle', 'tasks-capability-negotiation', 'tasks-wire-fields', 'tasks-request-state-removal', 'tasks-required-task-error', 'tasks-request-headers'];

let gateway: TestGateway;
let workDir: string;
const runs = new Map<string, SuiteRun>();

beforeAll(async () => {
  gateway = await startGateway({ mcpServers: { jobs: { ...stdioFixture('tasks-server'), prefix: '' } } });
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

describe('the conformance suite tasks-* scenarios through the gateway, bridged to 2025 tasks', () => {
  it.each(SCENARIOS)('%s passes every check', (scenario) => {
    const run = runs.get(scenario)!;
    expect(run.checks.get(scenario)?.length, suiteSummary(run)).toBeGreaterThan(0);
    const failed = [...run.checks.values()].flat().filter((check) => check.status !== 'SUCCESS').map(({ id, status, errorMessage }) => ({ id, status, errorMessage }));
    expect(failed, suiteSummary(run)).toEqual([]);
  });
});
