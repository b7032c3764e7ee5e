// Tasks of an upstream that speaks 2026-07-28 and offers the tasks extension (SEP-2663;
// test/fixtures/modern-tasks-server.ts) through the gateway, for both eras of client. A 2025 client
// (the v1 SDK's experimental tasks) runs its task tools as 2025 tasks: the bridge gives it 2025's
// shapes, puts the task's input requests to it during tasks/result, and answers the upstream with
// tasks/update. A 2026 client gets the extension passed through: the flat CreateTaskResult, tasks/get
// with the result or the pending inputRequests inlined, tasks/update, tasks/cancel. Either way the
// task id is the gateway's, bound to the principal and endpoint, and it is answered from the other
// replica too.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.js';
import { envelope, modernPost, modernRequest } from '../support/modern-http.js';
import { redisUrl } from '../support/redis.js';
import { startHttpFixture, stdioFixture, type HttpUpstream, type StdioUpstream } from '../support/upstreams.js';
import { rpcFailure } from '../support/rpc-failure.js';

const PUBLIC_URL = 'https://mcp.switchboard.test/mcp';
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
/** The gateway's task ids: 16 random bytes, base64url (the fixture's own are upstream-task-N). */
const GATEWAY_TASK_ID = /^[A-Za-z0-9_-]{22}$/;

type Json = Record<string, unknown>;

// Two setups: one replica on memory with the upstream over stdio; two on Redis with it over HTTP
// (one upstream process each, so a task lives with one replica), where the fixture checks each
// tasks/* request's Mcp-Name against its task id (the upstream's, not the gateway's).
const SETUPS = [
  { store: 'memory', transport: 'stdio' },
  { store: 'redis', transport: 'http' },
] as const;

describe.each(SETUPS)('tasks of a 2026-07-28 upstream through the gateway, $store store, upstream over $transport', ({ store, transport }) => {
  let issuer: LocalIssuer;
  let replicas: TestGateway[] = [];
  const upstreams: HttpUpstream[] = [];
  const clients: Client[] = [];

  async function upstream(): Promise<StdioUpstream | { url: string }> {
    if (transport === 'stdio') return stdioFixture('modern-tasks-server');
    const started = await startHttpFixture('modern-tasks-server');
    upstreams.push(started);
    return { url: started.url };
  }

  beforeAll(async () => {
    issuer = await startLocalIssuer(PUBLIC_URL);
    const config = async () => ({
      server: { publicUrl: PUBLIC_URL },
      auth: { issuer: issuer.issuer, jwksUri: issuer.jwksUri },
      mcpServers: { jobs: await upstream() },
      endpoints: { other: { path: '/mcp/other', include: ['jobs/*'] } },
      ...(store === 'redis' && { sessions: { store: 'redis' as const, redisUrl: redisUrl() } }),
    });
    replicas = store === 'redis' ? await Promise.all([startGateway(await config()), startGateway(await config())]) : [await startGateway(await config())];
  }, 90_000);

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await Promise.allSettled(replicas.map((replica) => replica.close()));
    await Promise.allSettled(upstreams.map((started) => started.stop()));
    await issuer?.stop();
  });

  const first = () => replicas[0]!;
  /** The other replica (with one replica, the same one). */
  const other = () => replicas.at(-1)!;

  function token(sub: string, path = '/mcp'): Promise<string> {
    return issuer.token({ sub }, { audience: new URL(path, PUBLIC_URL).href });
  }

  /** A 2025-11-25 client (the v1 SDK). */
  async function connect(gateway: TestGateway, sub: string, capabilities: Json = {}): Promise<Client> {
    const client = new Client({ name: 'modern-upstream-tasks-test', version: '1.0.0' }, { capabilities });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', gateway.url), { requestInit: { headers: { authorization: `Bearer ${await token(sub)}` } } }));
    clients.push(client);
    return client;
  }

  /** One 2026-07-28 request that declares the tasks extension: its result, or its error. */
  async function modern(gateway: TestGateway, sub: string, method: string, params: Json, path = '/mcp'): Promise<{ result?: Json; error?: { code: number; message: string } }> {
    const { body } = await modernPost(new URL(path, gateway.url).href, modernRequest(method, params, envelope(TASKS)), { token: await token(sub, path) });
    return body as { result?: Json; error?: { code: number; message: string } };
  }

  async function until(gateway: TestGateway, sub: string, taskId: string, done: (task: Json) => boolean): Promise<Json> {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const { result } = await modern(gateway, sub, 'tasks/get', { taskId });
      if (result && done(result)) return result;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`task ${taskId} did not get there`);
  }

  /** An ack without the gateway's serverInfo, which every 2026 result carries. */
  function emptyAck(result: Json | undefined): Json | undefined {
    if (!result) return result;
    const { _meta: _serverInfo, ...ack } = result;
    return ack;
  }

  it('announces tasks to both eras and lists the task tools with their taskSupport', async () => {
    const client = await connect(first(), 'alice');
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'jobs__slow_compute')?.execution).toEqual({ taskSupport: 'optional' });
    const { result } = await modern(first(), 'alice', 'server/discover', {});
    expect((result?.capabilities as Json).extensions).toMatchObject(TASKS.extensions);
  });

  it("runs a 2026 upstream's task tool for a 2025 client: callToolStream gets a task of the gateway's, its status, the result", async () => {
    const client = await connect(first(), 'alice');
    await client.listTools();
    const kinds: string[] = [];
    let taskId: string | undefined;
    let result = '';
    for await (const message of client.experimental.tasks.callToolStream({ name: 'jobs__slow_compute', arguments: { seconds: 1, label: 'bridged' } })) {
      kinds.push(message.type);
      if (message.type === 'taskCreated') taskId = message.task.taskId;
      if (message.type === 'result') result = JSON.stringify(message.result.content);
      if (message.type === 'error') throw message.error;
    }
    expect(taskId).toMatch(GATEWAY_TASK_ID);
    expect(kinds[0]).toBe('taskCreated');
    expect(kinds.at(-1)).toBe('result');
    expect(result).toContain('computed bridged after 1s');
  }, 30_000);

  it("gives a 2025 client 2025's task shapes: ttl and pollInterval, no inlined result, the result from tasks/result", async () => {
    const client = await connect(first(), 'bob');
    const created = await client.request({ method: 'tools/call', params: { name: 'jobs__slow_compute', arguments: { seconds: 0, label: 'shapes' }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
    expect(created.task).toMatchObject({ taskId: expect.stringMatching(GATEWAY_TASK_ID), ttl: 60_000, pollInterval: 100 });
    expect(created.task).not.toHaveProperty('ttlMs');
    const elsewhere = await connect(other(), 'bob');
    const result = await elsewhere.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
    expect(JSON.stringify(result.content)).toContain('computed shapes after 0s');
    expect(result._meta?.['io.modelcontextprotocol/related-task']).toEqual({ taskId: created.task.taskId });
    const task = await elsewhere.experimental.tasks.getTask(created.task.taskId);
    expect(task).toMatchObject({ taskId: created.task.taskId, status: 'completed' });
    expect(task).not.toHaveProperty('result');
    expect((await elsewhere.experimental.tasks.listTasks()).tasks.map((listed) => listed.taskId)).toContain(created.task.taskId);
  }, 30_000);

  it("puts a 2026 task's input request to the 2025 client during tasks/result, naming the gateway's task, and answers the upstream", async () => {
    const client = await connect(first(), 'carol', { elicitation: { form: {} } });
    const asked: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params._meta?.['io.modelcontextprotocol/related-task']);
      return { action: 'accept', content: { confirm: true } };
    });
    await client.listTools();
    let taskId: string | undefined;
    let result = '';
    for await (const message of client.experimental.tasks.callToolStream({ name: 'jobs__confirm_delete', arguments: { filename: 'notes.txt' } })) {
      if (message.type === 'taskCreated') taskId = message.task.taskId;
      if (message.type === 'result') result = JSON.stringify(message.result.content);
      if (message.type === 'error') throw message.error;
    }
    expect(asked).toEqual([{ taskId }]);
    expect(result).toContain('deleted notes.txt');
  }, 30_000);

  it("reports a 2026 tool error to a 2025 client as a failed task whose result is the tool's error", async () => {
    const client = await connect(first(), 'dave');
    const created = await client.request({ method: 'tools/call', params: { name: 'jobs__failing_job', arguments: {}, task: {} } }, CreateTaskResultSchema);
    const result = await client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
    expect(result).toMatchObject({ isError: true });
    expect(await client.experimental.tasks.getTask(created.task.taskId)).toMatchObject({ status: 'failed' });
  }, 30_000);

  it('cancels a 2026 task for a 2025 client from the other replica; a second cancel is refused', async () => {
    const client = await connect(first(), 'erin');
    const created = await client.request({ method: 'tools/call', params: { name: 'jobs__slow_compute', arguments: { seconds: 60 }, task: {} } }, CreateTaskResultSchema);
    const elsewhere = await connect(other(), 'erin');
    expect(await elsewhere.experimental.tasks.cancelTask(created.task.taskId)).toMatchObject({ taskId: created.task.taskId, status: 'cancelled' });
    expect(await rpcFailure(elsewhere.experimental.tasks.cancelTask(created.task.taskId))).toMatchObject({ code: -32602 });
    expect(await rpcFailure(elsewhere.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema))).toMatchObject({ code: -32602, message: expect.stringContaining('cancelled') });
  }, 30_000);

  it("passes a 2026 client's task through: a flat CreateTaskResult under the gateway's id, tasks/get with the result inlined", async () => {
    const { result: created } = await modern(first(), 'frank', 'tools/call', { name: 'jobs__slow_compute', arguments: { seconds: 0, label: 'modern' } });
    expect(created).toMatchObject({ resultType: 'task', taskId: expect.stringMatching(GATEWAY_TASK_ID), status: 'working', ttlMs: 60_000, pollIntervalMs: 100 });
    expect(created).not.toHaveProperty('task');
    const done = await until(other(), 'frank', String(created!.taskId), (task) => task.status === 'completed');
    expect(done).toMatchObject({ resultType: 'complete', taskId: created!.taskId, result: { content: [{ type: 'text', text: 'computed modern after 0s' }] } });
  }, 30_000);

  it("passes a 2026 task's input requests and the client's tasks/update through, from the other replica", async () => {
    const { result: created } = await modern(first(), 'grace', 'tools/call', { name: 'jobs__confirm_delete', arguments: { filename: 'draft.md' } });
    const taskId = String(created!.taskId);
    const waiting = await until(other(), 'grace', taskId, (task) => task.status === 'input_required');
    const [key, request] = Object.entries(waiting.inputRequests as Json)[0]!;
    expect(request).toMatchObject({ method: 'elicitation/create', params: { message: 'Delete draft.md?' } });
    const { result: ack } = await modern(other(), 'grace', 'tasks/update', { taskId, inputResponses: { [key]: { action: 'accept', content: { confirm: false } } } });
    expect(emptyAck(ack)).toEqual({ resultType: 'complete' });
    const done = await until(first(), 'grace', taskId, (task) => task.status === 'completed');
    expect(done.result).toEqual({ content: [{ type: 'text', text: 'kept draft.md' }] });
  }, 30_000);

  it('cancels a 2026 task for a 2026 client with an empty ack, also once it is over', async () => {
    const { result: created } = await modern(first(), 'heidi', 'tools/call', { name: 'jobs__slow_compute', arguments: { seconds: 60 } });
    const taskId = String(created!.taskId);
    expect(emptyAck((await modern(other(), 'heidi', 'tasks/cancel', { taskId })).result)).toEqual({ resultType: 'complete' });
    expect((await modern(first(), 'heidi', 'tasks/get', { taskId })).result).toMatchObject({ status: 'cancelled' });
    expect(emptyAck((await modern(first(), 'heidi', 'tasks/cancel', { taskId })).result)).toEqual({ resultType: 'complete' });
  }, 30_000);

  it("keeps a 2026 upstream's task to its principal and endpoint, in either era", async () => {
    const { result: created } = await modern(first(), 'ivan', 'tools/call', { name: 'jobs__slow_compute', arguments: { seconds: 60 } });
    const taskId = String(created!.taskId);
    expect((await modern(other(), 'mallory', 'tasks/get', { taskId })).error).toMatchObject({ code: -32602 });
    expect((await modern(other(), 'mallory', 'tasks/cancel', { taskId })).error).toMatchObject({ code: -32602 });
    expect((await modern(other(), 'ivan', 'tasks/get', { taskId }, '/mcp/other')).error).toMatchObject({ code: -32602 });
    expect(await rpcFailure((await connect(other(), 'mallory')).experimental.tasks.getTask(taskId))).toMatchObject({ code: -32602 });
    // Nothing of the upstream's own id reaches a client: only the gateway's.
    expect(JSON.stringify(await modern(first(), 'ivan', 'tasks/get', { taskId }))).not.toContain('upstream-task-');
    await modern(first(), 'ivan', 'tasks/cancel', { taskId });
  }, 30_000);
});
