// A 2026-07-28 client's tasks (the io.modelcontextprotocol/tasks extension, SEP-2663) through the
// gateway, bridged to server-everything's 2025 experimental tasks: the gateway announces the
// extension, makes a task of a call of a task tool for a client that declared it (flat
// CreateTaskResult, ttlMs), inlines the report in tasks/get once the task is done, answers
// tasks/cancel with an empty ack, and refuses the task surface to a client that did not declare it.
// A question the upstream asks for the task (an elicitation tied to it, which 2025 delivers on
// tasks/result) reaches the client as the task's inputRequests, and its tasks/update answers it,
// from either replica.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { envelope, modernPost, modernRequest } from '../support/modern-http.js';
import { redisUrl } from '../support/redis.js';
import { everythingStdio } from '../support/upstreams.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const RESEARCH = 'everything__simulate-research-query';
const WITH_TASKS = { extensions: { [TASKS]: {} } };

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway({ mcpServers: { everything: everythingStdio() } });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
});

async function post(method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = WITH_TASKS): Promise<{ status: number; body: Record<string, unknown> }> {
  const { status, body } = await modernPost(gateway.url, modernRequest(method, params, envelope(capabilities)));
  return { status, body: body as Record<string, unknown> };
}

async function untilDone(taskId: string): Promise<Record<string, unknown>> {
  for (;;) {
    const { body } = await post('tasks/get', { taskId });
    const task = body.result as Record<string, unknown>;
    if (task.status !== 'working' && task.status !== 'input_required') return task;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('a 2026-07-28 client with the tasks extension, a 2025 upstream with tasks', () => {
  it('server/discover announces the extension, not the 2025 capability', async () => {
    const { body } = await post('server/discover', {});
    const capabilities = (body.result as { capabilities: Record<string, unknown> }).capabilities;
    expect(capabilities.tasks).toBeUndefined();
    expect(capabilities.extensions).toMatchObject({ [TASKS]: {} });
  });

  it('runs the task tool as a task: a flat CreateTaskResult, then tasks/get with the report inlined', async () => {
    const { body } = await post('tools/call', { name: RESEARCH, arguments: { topic: 'bridges' } });
    const created = body.result as Record<string, unknown>;
    expect(created).toMatchObject({ resultType: 'task', status: 'working', taskId: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/) });
    expect(created.ttlMs).toEqual(expect.any(Number));
    expect(created).not.toHaveProperty('task');
    expect(created).not.toHaveProperty('ttl');
    const done = await untilDone(String(created.taskId));
    expect(done.status).toBe('completed');
    const result = done.result as { content: unknown[]; _meta?: Record<string, unknown> };
    expect(JSON.stringify(result.content)).toContain('Research Report: bridges');
    expect(result._meta?.['io.modelcontextprotocol/related-task']).toBeUndefined();
    // Cancelling a task that is done is the same empty ack (2025's upstream refuses it).
    const { body: cancelled } = await post('tasks/cancel', { taskId: created.taskId });
    expect(cancelled.result).toMatchObject({ resultType: 'complete' });
    expect(cancelled.result).not.toHaveProperty('taskId');
  }, 30_000);

  it('cancels a running task: an empty ack, then tasks/get says cancelled', async () => {
    const { body } = await post('tools/call', { name: RESEARCH, arguments: { topic: 'stopping' } });
    const taskId = String((body.result as Record<string, unknown>).taskId);
    expect((await post('tasks/cancel', { taskId })).body.result).toMatchObject({ resultType: 'complete' });
    expect(await untilDone(taskId)).toMatchObject({ taskId, status: 'cancelled' });
  });

  it('refuses the task surface to a client that did not declare the extension (-32021)', async () => {
    const call = await post('tools/call', { name: RESEARCH, arguments: { topic: 'x' } }, {});
    expect((call.body.error as { code: number }).code).toBe(-32021);
    const get = await post('tasks/get', { taskId: 'anything' }, {});
    expect((get.body.error as { code: number }).code).toBe(-32021);
    // A plain tool is still a plain call with the extension declared.
    const echo = await post('tools/call', { name: 'everything__echo', arguments: { message: 'hi' } });
    expect(echo.body.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Echo: hi' }] });
  });
});

describe("a 2025 upstream's question for a 2026 client's task, on two replicas (Redis)", () => {
  let replicas: TestGateway[] = [];

  beforeAll(async () => {
    // Each replica has its own server-everything: the task, and the question it asks, live with one.
    const config = { mcpServers: { everything: everythingStdio() }, sessions: { store: 'redis' as const, redisUrl: redisUrl() } };
    replicas = await Promise.all([startGateway(config), startGateway(config)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(replicas.map((replica) => replica.close()));
  });

  const ASKING = { elicitation: { form: {} }, ...WITH_TASKS };

  async function on(replica: TestGateway, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { body } = await modernPost(replica.url, modernRequest(method, params, envelope(ASKING)));
    return (body as { result: Record<string, unknown> }).result;
  }

  it('shows it in tasks/get as inputRequests on the other replica, and takes the answer with tasks/update there', async () => {
    const created = await on(replicas[0]!, 'tools/call', { name: RESEARCH, arguments: { topic: 'python', ambiguous: true } });
    const taskId = String(created.taskId);
    let waiting: Record<string, unknown> = {};
    for (let attempt = 0; attempt < 60 && waiting.status !== 'input_required'; attempt += 1) {
      waiting = await on(replicas[1]!, 'tasks/get', { taskId });
      if (waiting.status !== 'input_required') await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const [key, request] = Object.entries(waiting.inputRequests as Record<string, { method: string; params: Record<string, unknown> }>)[0]!;
    expect(request.method).toBe('elicitation/create');
    expect(JSON.stringify(request.params)).toContain('python');
    // The upstream's own task id names nothing the client holds: the request is the task's by where it is.
    expect(JSON.stringify(request.params)).not.toContain('related-task');
    expect(await on(replicas[1]!, 'tasks/update', { taskId, inputResponses: { [key]: { action: 'accept', content: { interpretation: 'programming' } } } })).toMatchObject({ resultType: 'complete' });
    let done: Record<string, unknown> = {};
    for (let attempt = 0; attempt < 60 && done.status !== 'completed'; attempt += 1) {
      done = await on(replicas[0]!, 'tasks/get', { taskId });
      if (done.status !== 'completed') await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(JSON.stringify(done.result)).toContain('Clarification**: programming');
  }, 60_000);
});
