// Gateway tasks (docs/decisions/0019-gateway-tasks.md): with tasks.gatewayTasks on, a tool of a
// server without tasks (interactive-server's `slow`, over HTTP so both replicas reach one process
// and its record of cancellations) is listed as taskSupport "optional", and a task-augmented call
// of it runs as a task of the gateway's. Two gateway processes on one Redis: the client starts the
// task on one and goes away; a new client on the other sees it working, then its result. The task
// is the principal's only; tasks/cancel stops the upstream call; the bound refuses one task too many;
// the task's upstream call takes a plain call's path (the server's rate limit, an audit line).
// The call's progress reaches the session that made the task. A 2026-07-28 client that declares the
// tasks extension gets the same, in that extension's shapes.
// The memory store does the same in one process.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, TaskStatusNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, writeConfigFile, type GatewayProcess } from '../support/gateway-process.js';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.js';
import { deleteKeysWithPrefix, redisUrl, uniqueKeyPrefix } from '../support/redis.js';
import { envelope, modernPost, modernRequest } from '../support/modern-http.js';
import { startHttpFixture, type HttpUpstream } from '../support/upstreams.js';
import { rpcFailure } from '../support/rpc-failure.js';

const PUBLIC_URL = 'https://mcp.switchboard.test/mcp';
const SLOW = 'interactive__slow';
const MAX_PER_PRINCIPAL = 3;
const SLOW_PER_MINUTE = 5;
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

type Store = 'memory' | 'redis';

describe.each<Store>(['memory', 'redis'])('gateway tasks for a server without tasks, %s store', (store) => {
  let issuer: LocalIssuer;
  let upstream: HttpUpstream;
  let replicas: GatewayProcess[] = [];
  const clients: Client[] = [];
  const keyPrefix = uniqueKeyPrefix('gateway-tasks');

  beforeAll(async () => {
    [issuer, upstream] = await Promise.all([startLocalIssuer(PUBLIC_URL), startHttpFixture('interactive-server')]);
    const config = writeConfigFile({
      server: { publicUrl: PUBLIC_URL },
      auth: { issuer: issuer.issuer, jwksUri: issuer.jwksUri },
      mcpServers: { interactive: { url: upstream.url } },
      tasks: { gatewayTasks: true, maxPerPrincipal: MAX_PER_PRINCIPAL },
      // Per principal: a task's upstream call is counted and refused as a plain call is.
      limits: { servers: { interactive: { tools: { slow: { requestsPerMinute: SLOW_PER_MINUTE } } } } },
      ...(store === 'redis' && { sessions: { store: 'redis', redisUrl: redisUrl(), keyPrefix } }),
    });
    replicas = store === 'redis' ? await Promise.all([startGatewayProcess(config), startGatewayProcess(config)]) : [await startGatewayProcess(config)];
  }, 90_000);

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await Promise.allSettled(replicas.map((replica) => replica.stop()));
    await Promise.allSettled([issuer?.stop(), upstream?.stop()]);
    if (store === 'redis') await deleteKeysWithPrefix(redisUrl(), keyPrefix);
  });

  const first = () => replicas[0]!;
  /** The other replica (with one replica, the same one). */
  const other = () => replicas.at(-1)!;

  async function connect(gateway: GatewayProcess, sub: string): Promise<Client> {
    const token = await issuer.token({ sub }, { audience: PUBLIC_URL });
    const client = new Client({ name: 'gateway-tasks-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', gateway.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    clients.push(client);
    return client;
  }

  async function startSlow(client: Client, ms: number, tag: string): Promise<{ taskId: string; status: string; pollInterval?: number | undefined }> {
    const created = await client.request({ method: 'tools/call', params: { name: SLOW, arguments: { ms, tag }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
    return created.task;
  }

  /** The tags of the slow calls interactive-server saw cancelled. */
  async function cancelledUpstream(client: Client): Promise<string[]> {
    const result = await client.callTool({ name: 'interactive__cancellations' });
    const [content] = result.content as { text: string }[];
    return JSON.parse(content!.text) as string[];
  }

  it('announces tasks and lists the tools of the server without tasks as taskSupport "optional"', async () => {
    const client = await connect(first(), 'alice');
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === SLOW)?.execution).toEqual({ taskSupport: 'optional' });
  });

  it('completes the task after the client went away, answered by a new client on the other replica', async () => {
    const starter = await connect(first(), 'alice');
    const task = await startSlow(starter, 1500, 'survives');
    expect(task).toMatchObject({ status: 'working', pollInterval: expect.any(Number) });
    await starter.close();

    const elsewhere = await connect(other(), 'alice');
    expect(await elsewhere.experimental.tasks.getTask(task.taskId)).toMatchObject({ taskId: task.taskId, status: 'working' });
    // tasks/result waits until the task is done (the spec), then answers the upstream's own result.
    const result = await elsewhere.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.content).toEqual([{ type: 'text', text: 'slept 1500 ms' }]);
    expect(result._meta?.['io.modelcontextprotocol/related-task']).toEqual({ taskId: task.taskId });
    expect(await elsewhere.experimental.tasks.getTask(task.taskId)).toMatchObject({ taskId: task.taskId, status: 'completed' });
    // The call was not cancelled upstream when its client went away.
    expect(await cancelledUpstream(elsewhere)).not.toContain('survives');
  });

  it("fails the task when the tool answers an error of its own, and tasks/result answers that result", async () => {
    const client = await connect(first(), 'jack');
    // Out of the tool's input schema: the server answers a result with isError.
    const task = await startSlow(client, -1, 'invalid');
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.isError).toBe(true);
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'failed' });
  });

  it('tells the session that made the task when it is done', async () => {
    const client = await connect(first(), 'kate');
    const statuses: { taskId: string; status: string }[] = [];
    client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => void statuses.push(notification.params));
    const task = await startSlow(client, 200, 'told');
    await expect.poll(() => statuses, { timeout: 5000, interval: 50 }).toEqual([expect.objectContaining({ taskId: task.taskId, status: 'completed' })]);
  });

  it("passes the call's progress to the session that made the task, under the client's own token", async () => {
    const client = await connect(first(), 'liam');
    const updates: { progress: number; message?: string | undefined }[] = [];
    // The SDK keeps the request's progress handler for the task's life (its token stays valid then).
    const created = await client.request({ method: 'tools/call', params: { name: SLOW, arguments: { ms: 300, tag: 'progress' }, task: { ttl: 60_000 } } }, CreateTaskResultSchema, {
      onprogress: (update) => void updates.push(update),
    });
    expect(created.task.status).toBe('working');
    await expect.poll(() => updates, { timeout: 5000, interval: 50 }).toEqual([expect.objectContaining({ progress: 0, message: 'started' })]);
  });

  it("keeps a principal's task from every other principal", async () => {
    const owner = await connect(first(), 'carol');
    const task = await startSlow(owner, 100, 'private');
    const mallory = await connect(other(), 'mallory');
    expect(await rpcFailure(mallory.experimental.tasks.getTask(task.taskId))).toMatchObject({ code: -32602, message: expect.stringContaining('task not found') });
    expect(await rpcFailure(mallory.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema))).toMatchObject({ code: -32602 });
    expect(await rpcFailure(mallory.experimental.tasks.cancelTask(task.taskId))).toMatchObject({ code: -32602 });
    expect((await mallory.experimental.tasks.listTasks()).tasks).toEqual([]);
    expect((await owner.experimental.tasks.listTasks()).tasks.map((listed) => listed.taskId)).toContain(task.taskId);
  });

  it('cancels the upstream call on tasks/cancel from the other replica', async () => {
    const starter = await connect(first(), 'dave');
    const task = await startSlow(starter, 30_000, 'cancel-me');
    const elsewhere = await connect(other(), 'dave');
    expect(await elsewhere.experimental.tasks.cancelTask(task.taskId)).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
    await expect.poll(() => cancelledUpstream(elsewhere), { timeout: 5000, interval: 100 }).toContain('cancel-me');
    expect(await starter.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'cancelled' });
    // A task already cancelled is not cancelled again (the spec: -32602 for a terminal task).
    expect(await rpcFailure(elsewhere.experimental.tasks.cancelTask(task.taskId))).toMatchObject({ code: -32602 });
  });

  it('refuses one gateway task more than a principal may keep, and no one else', async () => {
    const client = await connect(first(), 'erin');
    for (let n = 0; n < MAX_PER_PRINCIPAL; n += 1) await startSlow(client, 0, `bound-${n}`);
    expect(await rpcFailure(startSlow(client, 0, 'one-too-many'))).toMatchObject({ code: -32602, message: expect.stringContaining('too many gateway tasks') });
    // Another principal's allowance is its own.
    expect((await startSlow(await connect(other(), 'frank'), 0, 'frank')).status).toBe('working');
    // A plain call of the same tool is still a plain call.
    expect((await client.callTool({ name: SLOW, arguments: { ms: 0, tag: 'plain' } })).content).toEqual([{ type: 'text', text: 'slept 0 ms' }]);
  });

  it("makes the task's upstream call the way a plain call goes: the server's rate limit refuses it, and the audit says so", async () => {
    const client = await connect(first(), 'gina');
    for (let n = 0; n < SLOW_PER_MINUTE; n += 1) await client.callTool({ name: SLOW, arguments: { ms: 0, tag: `rate-${n}` } });
    const task = await startSlow(client, 0, 'over-the-rate');
    // The task was made; its call was refused upstream-side by the limit, so the task failed with that error.
    expect(await rpcFailure(client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema))).toMatchObject({ code: -32003 });
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'failed' });
    // Its own audit line, as a plain call's refusal has; the request that made the task has one too ("ok": it made the task).
    // The process's log is read as it comes: wait for the line.
    const refusals = () => first().logs.filter((line) => line.audit === true && line.sub === 'gina' && line.name === 'slow' && line.outcome === 'denied');
    await expect.poll(refusals, { timeout: 5000, interval: 50 }).toEqual([
      expect.objectContaining({ method: 'tools/call', server: 'interactive', reason: 'tool-rate-limit', errorCode: -32003 }),
    ]);
  });

  /** A 2026-07-28 request of `sub`'s to `gateway`, declaring the tasks extension; the JSON-RPC body. */
  async function modern(gateway: GatewayProcess, sub: string, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const token = await issuer.token({ sub }, { audience: PUBLIC_URL });
    const message = modernRequest(method, params, envelope({ extensions: { [TASKS_EXTENSION]: {} } }));
    const { body } = await modernPost(new URL('/mcp', gateway.url).href, message, { token });
    return body as Record<string, unknown>;
  }

  it('gives a 2026-07-28 client with the tasks extension a gateway task: flat, then done with the result inlined, on the other replica', async () => {
    const created = (await modern(first(), 'henry', 'tools/call', { name: SLOW, arguments: { ms: 500, tag: 'modern' } })).result as Record<string, unknown>;
    expect(created).toMatchObject({ resultType: 'task', status: 'working', taskId: expect.any(String), ttlMs: expect.any(Number) });
    const taskId = String(created.taskId);
    let task: Record<string, unknown> = {};
    await expect
      .poll(async () => {
        task = (await modern(other(), 'henry', 'tasks/get', { taskId })).result as Record<string, unknown>;
        return task.status;
      }, { timeout: 5000, interval: 100 })
      .toBe('completed');
    expect(task.result).toMatchObject({ content: [{ type: 'text', text: 'slept 500 ms' }] });
    // Not another principal's, and a cancel of a done task is an empty ack (2026).
    expect(await modern(other(), 'mallory', 'tasks/get', { taskId })).toMatchObject({ error: { code: -32602 } });
    expect(await modern(other(), 'henry', 'tasks/cancel', { taskId })).toMatchObject({ result: {} });
  });

  it('cancels the upstream call on a 2026-07-28 client\'s tasks/cancel', async () => {
    const created = (await modern(first(), 'ivy', 'tools/call', { name: SLOW, arguments: { ms: 30_000, tag: 'modern-cancel' } })).result as Record<string, unknown>;
    const taskId = String(created.taskId);
    expect(await modern(other(), 'ivy', 'tasks/cancel', { taskId })).toMatchObject({ result: {} });
    const client = await connect(other(), 'ivy');
    await expect.poll(() => cancelledUpstream(client), { timeout: 5000, interval: 100 }).toContain('modern-cancel');
    expect(((await modern(first(), 'ivy', 'tasks/get', { taskId })).result as Record<string, unknown>).status).toBe('cancelled');
  });
  // Last of its block: it stops the first replica.
  // Only where a second replica is there to see the crashed one's task (the Redis case).
  if (store === 'redis') {
    it('fails a task whose replica crashed, rather than leaving it working', async () => {
      const task = await startSlow(await connect(first(), 'lena'), 30_000, 'orphaned');
      const elsewhere = await connect(other(), 'lena');
      // Killed, not stopped: a replica that shuts down fails its running calls itself, a crashed one cannot.
      const exited = new Promise((resolve) => first().child.once('exit', resolve));
      first().child.kill('SIGKILL');
      await exited;
      expect((await elsewhere.experimental.tasks.getTask(task.taskId)).status).toBe('working');
      // The running replica's lease in the store runs out within some 10 s.
      await expect
        .poll(async () => (await elsewhere.experimental.tasks.getTask(task.taskId)).status, { timeout: 20_000, interval: 500 })
        .toBe('failed');
      expect(await rpcFailure(elsewhere.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema))).toMatchObject({ code: -32603, message: expect.stringContaining('stopped before it was done') });
    }, 30_000);
  }
});

describe('a gateway task whose result is larger than the gateway keeps', () => {
  let upstream: HttpUpstream;
  let gateway: GatewayProcess;
  let client: Client;

  beforeAll(async () => {
    upstream = await startHttpFixture('interactive-server');
    // No auth: every caller is one principal. "slept 0 ms" as a result is some 50 bytes of JSON.
    gateway = await startGatewayProcess(writeConfigFile({ mcpServers: { interactive: { url: upstream.url } }, tasks: { gatewayTasks: true, maxResultBytes: 20 } }));
    client = new Client({ name: 'gateway-tasks-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', gateway.url)));
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await Promise.allSettled([gateway?.stop(), upstream?.stop()]);
  });

  it('fails the task and answers why on tasks/result', async () => {
    const created = await client.request({ method: 'tools/call', params: { name: SLOW, arguments: { ms: 0, tag: 'large' }, task: {} } }, CreateTaskResultSchema);
    // No ttl asked: the cap (tasks.maxTtlSeconds, an hour by default).
    expect(created.task.ttl).toBe(3_600_000);
    const error = await client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema).then(
      () => undefined,
      (failed: unknown) => failed as { code: number; message: string },
    );
    expect(error).toMatchObject({ code: -32603, message: expect.stringContaining('larger than the gateway keeps (20 bytes)') });
    expect(await client.experimental.tasks.getTask(created.task.taskId)).toMatchObject({ status: 'failed' });
  });
});
