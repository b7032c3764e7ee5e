// 2026 requests across two gateway processes sharing one Redis (and one state secret): a call that
// asked its client for input on one replica is completed by a retry sent to the other; a listen on
// one replica hears the change the other saw; and a retry whose replica was killed gets a clear
// error, never a hang.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectModern } from '../support/modern-client.js';
import { startGatewayProcess, writeConfigFile, type GatewayProcess } from '../support/gateway-process.js';
import { envelope, modernPost, modernRequest } from '../support/modern-http.js';
import { redisUrl, uniqueKeyPrefix } from '../support/redis.js';
import { startHttpFixture, stdioFixture, type HttpUpstream } from '../support/upstreams.js';

const SECRET = { SWITCHBOARD_STATE_SECRET: 'a-secret-every-replica-of-this-test-shares' };
const ELICITATION = { elicitation: { form: {} } };

async function post(url: string, _id: number, method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = {}) {
  const { status, body } = await modernPost(url, modernRequest(method, params, envelope(capabilities)));
  return { status, body: body as { result?: Record<string, unknown>; error?: { code: number; message: string } } };
}

/** The first round of an elicitation call: the input_required answer's key and state. */
async function askElicitation(url: string, params: Record<string, unknown>): Promise<{ key: string; requestState: string }> {
  const first = await post(url, 1, 'tools/call', params, ELICITATION);
  expect(first.body.result?.resultType).toBe('input_required');
  const [key] = Object.keys(first.body.result?.inputRequests as Record<string, unknown>);
  return { key: key!, requestState: String(first.body.result?.requestState) };
}

describe('2026 requests on two replicas sharing Redis', () => {
  let shared: HttpUpstream;
  let config: string;
  let replicas: GatewayProcess[] = [];

  beforeAll(async () => {
    shared = await startHttpFixture('interactive-server');
    config = writeConfigFile({
      sessions: { store: 'redis', redisUrl: redisUrl(), keyPrefix: uniqueKeyPrefix('modern-replicas') },
      mcpServers: { shared: { url: shared.url }, local: stdioFixture('interactive-server') },
    });
    replicas = await Promise.all([startGatewayProcess(config, SECRET), startGatewayProcess(config, SECRET)]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await shared?.stop();
  });

  it('completes on replica 2 a call that asked for input on replica 1', async () => {
    const [one, two] = replicas as [GatewayProcess, GatewayProcess];
    const params = { name: 'local__ask_elicitation', arguments: { message: 'which replica?' } };
    const { key, requestState } = await askElicitation(one.url, params);
    const retry = await post(two.url, 2, 'tools/call', { ...params, inputResponses: { [key]: { action: 'accept', content: { answer: 'answered on two' } } }, requestState }, ELICITATION);
    expect(retry.status).toBe(200);
    expect(retry.body.result?.resultType).toBe('complete');
    expect(JSON.stringify(retry.body.result?.content)).toContain('answered on two');
  });

  it('refuses the same state a second time: the call it named has finished', async () => {
    const [one, two] = replicas as [GatewayProcess, GatewayProcess];
    const params = { name: 'local__ask_elicitation', arguments: { message: 'twice?' } };
    const { key, requestState } = await askElicitation(one.url, params);
    const answer = { ...params, inputResponses: { [key]: { action: 'accept', content: { answer: 'once' } } }, requestState };
    expect((await post(two.url, 2, 'tools/call', answer, ELICITATION)).body.result?.resultType).toBe('complete');
    const replay = await post(two.url, 3, 'tools/call', answer, ELICITATION);
    expect(replay.status).toBe(400);
    expect(replay.body.error?.code).toBe(-32602);
    expect(replay.body.error?.message).toMatch(/no longer waiting/);
  });

  it('a listen on replica 2 hears the list change that replica 1 saw in its own stdio upstream', async () => {
    const [one, two] = replicas as [GatewayProcess, GatewayProcess];
    const listener = await connectModern(two.url);
    const changes: unknown[] = [];
    listener.setNotificationHandler('notifications/tools/list_changed', (notification) => void changes.push(notification.params?._meta));
    const subscription = await listener.listen({ toolsListChanged: true });
    const caller = await connectModern(one.url);
    await caller.callTool({ name: 'local__add_tool', arguments: { name: 'seen_by_replica_one' } });
    await expect.poll(() => changes.length, { timeout: 15_000 }).toBe(1);
    await subscription.close();
    await Promise.all([listener.close(), caller.close()]);
  });

  it('a retry whose replica was killed gets a clear error, not a hang', async () => {
    const doomed = await startGatewayProcess(config, SECRET);
    const params = { name: 'local__ask_elicitation', arguments: { message: 'still there?' } };
    const { key, requestState } = await askElicitation(doomed.url, params);
    doomed.child.kill('SIGKILL');
    await new Promise((resolve) => doomed.child.once('exit', resolve));
    const started = Date.now();
    const retry = await post(replicas[0]!.url, 2, 'tools/call', { ...params, inputResponses: { [key]: { action: 'accept', content: { answer: 'late' } } }, requestState }, ELICITATION);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(retry.body.error?.message).toMatch(/replica that held this call is gone/);
    await doomed.stop();
  });
});
