// Tasks (MCP 2025-11-25, experimental) through the gateway, with server-everything behind it, whose
// simulate-research-query must run as a task: the v1 SDK's callToolStream returns the report with
// status updates; the task id a client holds is the gateway's, bound to its principal and endpoint;
// tasks/get, tasks/list, tasks/result and tasks/cancel reach the upstream task from the other
// replica (Redis) as from the one that created it (memory: the same one); and execution.taskSupport
// is honoured as the spec says.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema, TaskStatusNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.js';
import { redisUrl } from '../support/redis.js';
import { everythingStdio } from '../support/upstreams.js';
import { rpcFailure } from '../support/rpc-failure.js';

const PUBLIC_URL = 'https://mcp.switchboard.test/mcp';
const RESEARCH = 'everything__simulate-research-query';
/** The gateway's task ids: 16 random bytes, base64url (server-everything's own are UUIDs). */
const GATEWAY_TASK_ID = /^[A-Za-z0-9_-]{22}$/;

type Store = 'memory' | 'redis';

describe.each<Store>(['memory', 'redis'])('tasks through the gateway, %s store', (store) => {
  let issuer: LocalIssuer;
  let replicas: TestGateway[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    issuer = await startLocalIssuer(PUBLIC_URL);
    const config = {
      server: { publicUrl: PUBLIC_URL },
      auth: { issuer: issuer.issuer, jwksUri: issuer.jwksUri },
      mcpServers: { everything: everythingStdio() },
      endpoints: { other: { path: '/mcp/other', include: ['everything/*'] } },
      ...(store === 'redis' && { sessions: { store: 'redis' as const, redisUrl: redisUrl() } }),
    };
    // Two replicas of one deployment on Redis (one key prefix per test file), each with its own
    // server-everything process: a task lives in the process that created it.
    replicas = store === 'redis' ? await Promise.all([startGateway(config), startGateway(config)]) : [await startGateway(config)];
  }, 90_000);

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await Promise.allSettled(replicas.map((replica) => replica.close()));
    await issuer?.stop();
  });

  const first = () => replicas[0]!;
  /** The other replica (with one replica, the same one). */
  const other = () => replicas.at(-1)!;

  async function connect(gateway: TestGateway, sub: string, path = '/mcp', capabilities: Record<string, object> = {}): Promise<Client> {
    // A token is for one endpoint: its audience is that endpoint's public URL.
    const token = await issuer.token({ sub }, { audience: new URL(path, PUBLIC_URL).href });
    const client = new Client({ name: 'tasks-test', version: '1.0.0' }, { capabilities });
    await client.connect(new StreamableHTTPClientTransport(new URL(path, gateway.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    clients.push(client);
    return client;
  }

  async function startResearch(client: Client): Promise<string> {
    const created = await client.request({ method: 'tools/call', params: { name: RESEARCH, arguments: { topic: 'gateways' }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
    return created.task.taskId;
  }

  it('announces tasks and lists the task tool with its taskSupport', async () => {
    const client = await connect(first(), 'alice');
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === RESEARCH)?.execution).toEqual({ taskSupport: 'required' });
  });

  it("runs the task tool with the v1 SDK's callToolStream: a task of the gateway's, status updates, the report", async () => {
    const client = await connect(first(), 'alice');
    await client.listTools();
    const kinds: string[] = [];
    const statuses: string[] = [];
    let taskId: string | undefined;
    let report = '';
    for await (const message of client.experimental.tasks.callToolStream({ name: RESEARCH, arguments: { topic: 'gateways' } })) {
      kinds.push(message.type);
      if (message.type === 'taskCreated') taskId = message.task.taskId;
      if (message.type === 'taskStatus') statuses.push(message.task.status);
      if (message.type === 'result') report = JSON.stringify(message.result.content);
      if (message.type === 'error') throw message.error;
    }
    expect(taskId).toMatch(GATEWAY_TASK_ID);
    expect(kinds[0]).toBe('taskCreated');
    expect(statuses).toContain('working');
    expect(kinds.at(-1)).toBe('result');
    expect(report).toContain('Research Report: gateways');
  }, 30_000);

  it("tells the session whose task it is of its status changes, under the gateway's id, and no other session", async () => {
    const owner = await connect(first(), 'grace');
    const bystander = await connect(first(), 'grace');
    const heard: { taskId: string; status: string }[] = [];
    const overheard: unknown[] = [];
    let done!: () => void;
    const terminal = new Promise<void>((resolve) => (done = resolve));
    owner.setNotificationHandler(TaskStatusNotificationSchema, (notification) => {
      heard.push({ taskId: notification.params.taskId, status: notification.params.status });
      if (notification.params.status === 'completed') done();
    });
    bystander.setNotificationHandler(TaskStatusNotificationSchema, (notification) => void overheard.push(notification.params));
    const taskId = await startResearch(owner);
    await terminal;
    expect(heard.every((status) => status.taskId === taskId)).toBe(true);
    expect(heard.map((status) => status.status)).toContain('working');
    expect(overheard).toEqual([]);
  }, 30_000);

  it('puts the elicitation a task waits on to the client, naming the task by its gateway id', async () => {
    const client = await connect(first(), 'frank', '/mcp', { elicitation: { form: {} } });
    const asked: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params._meta?.['io.modelcontextprotocol/related-task']);
      return { action: 'accept', content: { interpretation: 'programming' } };
    });
    await client.listTools();
    let taskId: string | undefined;
    let report = '';
    for await (const message of client.experimental.tasks.callToolStream({ name: RESEARCH, arguments: { topic: 'python', ambiguous: true } })) {
      if (message.type === 'taskCreated') taskId = message.task.taskId;
      if (message.type === 'result') report = JSON.stringify(message.result.content);
      if (message.type === 'error') throw message.error;
    }
    expect(asked).toEqual([{ taskId }]);
    expect(report).toContain('Clarification**: programming');
  }, 30_000);

  it('answers tasks/get, tasks/list and tasks/result for the task on the other replica', async () => {
    const taskId = await startResearch(await connect(first(), 'bob'));
    const elsewhere = await connect(other(), 'bob');
    const task = await elsewhere.experimental.tasks.getTask(taskId);
    expect(task).toMatchObject({ taskId, status: 'working' });
    const { tasks } = await elsewhere.experimental.tasks.listTasks();
    expect(tasks.map((listed) => listed.taskId)).toContain(taskId);
    const result = await elsewhere.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(JSON.stringify(result.content)).toContain('Research Report: gateways');
    expect(result._meta?.['io.modelcontextprotocol/related-task']).toEqual({ taskId });
  }, 30_000);

  it("keeps a task to its principal and endpoint: another's is not found, and not listed", async () => {
    const taskId = await startResearch(await connect(first(), 'carol'));
    const mallory = await connect(other(), 'mallory');
    expect(await rpcFailure(mallory.experimental.tasks.getTask(taskId))).toMatchObject({ code: -32602, message: expect.stringContaining('task not found') });
    expect((await mallory.experimental.tasks.listTasks()).tasks.map((task) => task.taskId)).not.toContain(taskId);
    const carolElsewhere = await connect(other(), 'carol', '/mcp/other');
    expect(await rpcFailure(carolElsewhere.experimental.tasks.getTask(taskId))).toMatchObject({ code: -32602 });
    await (await connect(first(), 'carol')).experimental.tasks.cancelTask(taskId);
  });

  it('cancels the task upstream from the other replica: it stays cancelled, and a second cancel is refused', async () => {
    const taskId = await startResearch(await connect(first(), 'dave'));
    const elsewhere = await connect(other(), 'dave');
    expect(await elsewhere.experimental.tasks.cancelTask(taskId)).toMatchObject({ taskId, status: 'cancelled' });
    // The research takes four one-second stages: past them, the upstream still says cancelled.
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    expect(await (await connect(first(), 'dave')).experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'cancelled' });
    expect(await rpcFailure(elsewhere.experimental.tasks.cancelTask(taskId))).toMatchObject({ code: -32602 });
  }, 30_000);

  it('honours execution.taskSupport: a required tool refuses a plain call, a forbidden one a task', async () => {
    const client = await connect(first(), 'erin');
    expect(await rpcFailure(client.callTool({ name: RESEARCH, arguments: { topic: 'x' } }))).toMatchObject({ code: -32601, message: expect.stringContaining('must be called as a task') });
    expect(await rpcFailure(client.request({ method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'hi' }, task: {} } }, CallToolResultSchema))).toMatchObject({
      code: -32601,
      message: expect.stringContaining('cannot be called as a task'),
    });
    expect(await client.callTool({ name: 'everything__echo', arguments: { message: 'hi' } })).toMatchObject({ content: [{ type: 'text', text: 'Echo: hi' }] });
  });
});
