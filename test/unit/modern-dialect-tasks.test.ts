// How a 2026-07-28 upstream is asked for tasks and how its task answers are read (the tasks
// extension, SEP-2663): the declaration goes on exactly the requests that need it, 2025's `task`
// param does not go out, and a CreateTaskResult is kept for the gateway's task handlers. Also how a
// 2026 task is shown to a 2025 client.
import { describe, expect, it } from 'vitest';
import { decodeModernResult, modernDialect } from '../../src/upstream/modern-dialect.js';
import { legacyTask } from '../../src/gateway/tasks/extension-tasks.js';

const CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const TASKS = 'io.modelcontextprotocol/tasks';
const dialect = modernDialect({ protocolVersion: '2026-07-28', clientInfo: { name: 'switchboard', version: '1' }, clientCapabilities: { elicitation: {} } });

function capabilitiesSent(method: string, params: Record<string, unknown>): unknown {
  return (dialect.outbound(params, method)?._meta as Record<string, unknown>)[CAPABILITIES];
}

describe('the modern dialect and tasks', () => {
  it("declares the extension on a task-augmented tools/call, next to the caller's own capabilities, and drops `task`", () => {
    const sent = dialect.outbound({ name: 'slow', task: { ttl: 1000 }, _meta: { [CAPABILITIES]: { sampling: {}, extensions: { 'io.modelcontextprotocol/ui': {} } } } }, 'tools/call');
    expect(sent).not.toHaveProperty('task');
    expect((sent?._meta as Record<string, unknown>)[CAPABILITIES]).toEqual({ sampling: {}, extensions: { 'io.modelcontextprotocol/ui': {}, [TASKS]: {} } });
  });

  it('declares it on tasks/get, tasks/update and tasks/cancel', () => {
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      expect(capabilitiesSent(method, { taskId: 't' })).toEqual({ elicitation: {}, extensions: { [TASKS]: {} } });
    }
  });

  it('declares it nowhere else: a plain call, another method', () => {
    expect(capabilitiesSent('tools/call', { name: 'slow' })).toEqual({ elicitation: {} });
    expect(capabilitiesSent('resources/read', { uri: 'x://y', task: {} })).toEqual({ elicitation: {} });
  });

  it('keeps a tools/call CreateTaskResult with its resultType; refuses one without a taskId, and a task answer to anything else', () => {
    const created = { resultType: 'task', taskId: 'u1', status: 'working', ttlMs: 1000 };
    expect(decodeModernResult('jobs', 'tools/call', created)).toEqual(created);
    expect(decodeModernResult('jobs', 'tools/call', { resultType: 'task', status: 'working' })).toBeInstanceOf(Error);
    expect(decodeModernResult('jobs', 'prompts/get', created)).toBeInstanceOf(Error);
  });
});

describe('a 2026 task as a 2025 client has it', () => {
  it("renames ttlMs and pollIntervalMs, leaves out what 2026 inlines, and puts the gateway's id", () => {
    const task = { resultType: 'complete', taskId: 'u1', status: 'completed', createdAt: 'a', lastUpdatedAt: 'b', ttlMs: 60_000, pollIntervalMs: 100, result: { content: [] }, _meta: {} };
    expect(legacyTask(task, 'g1')).toEqual({ taskId: 'g1', status: 'completed', createdAt: 'a', lastUpdatedAt: 'b', ttl: 60_000, pollInterval: 100 });
  });

  it("says failed of a tool's own error (2026: completed with isError), with the error's message for a failed one", () => {
    expect(legacyTask({ taskId: 'u', status: 'completed', ttlMs: null, result: { content: [], isError: true } }, 'g')).toMatchObject({ status: 'failed', ttl: null });
    expect(legacyTask({ taskId: 'u', status: 'failed', ttlMs: null, error: { code: -32603, message: 'boom' } }, 'g')).toMatchObject({ status: 'failed', statusMessage: 'boom' });
  });
});
