// Hostile 2026-07-28 requests against listening gateways in front of a real 2025 upstream that asks
// its client for input (test/fixtures/interactive-server.ts over Streamable HTTP). Each gets the
// refusal the spec gives it (HTTP status and JSON-RPC code), fast, and nothing crashes; at the end
// a well-behaved 2026 client (the v2 SDK, pinned to 2026-07-28) is still served, MRTR included.
//
// The upstream connection is shared, so a gateway can tell which caller an upstream's question
// belongs to only while one call on it waits for input: every test that parks a call finishes it
// (a correct retry) before the next one starts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.js';
import {
  base64Sentinel,
  envelope,
  META_KEY,
  MODERN_VERSION,
  modernPost,
  modernRequest,
  type ModernPostOptions,
} from '../support/modern-http.js';
import { connectModern, SAMPLED_TEXT } from '../support/modern-client.js';
import { openSession, rawPost } from '../support/raw-http.js';
import { startHttpFixture, type HttpUpstream } from '../support/upstreams.js';

const SECRET = 'hostile-2026-state-secret-number-one';
const OTHER_SECRET = 'hostile-2026-state-secret-number-two';
const PUBLIC_URL = 'https://mcp.hostile.test/mcp';
const SAMPLING = { sampling: {} };
const SAMPLED = { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model', stopReason: 'endTurn' };
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** A refusal is an answer, not a wait: anything slower means the gateway went looking for trouble. */
const REFUSAL_MS = 2_000;

let upstream: HttpUpstream;
let issuer: LocalIssuer;
/** The gateway most tests talk to. */
let main: TestGateway;
/** Another deployment: same upstream, another state secret. */
let other: TestGateway;
/** Sealed state lives one second here. */
let brief: TestGateway;
/** Authentication on: a state belongs to the principal it was issued to. */
let authed: TestGateway;

beforeAll(async () => {
  [upstream, issuer] = await Promise.all([startHttpFixture('interactive-server'), startLocalIssuer(PUBLIC_URL)]);
  const mcpServers = { interactive: { url: upstream.url } };
  [main, other, brief, authed] = await Promise.all([
    startGateway({ mcpServers, mrtr: { stateSecret: SECRET } }),
    startGateway({ mcpServers, mrtr: { stateSecret: OTHER_SECRET } }),
    startGateway({ mcpServers, mrtr: { stateSecret: SECRET, inputTimeoutSeconds: 1 } }),
    startGateway({
      server: { publicUrl: PUBLIC_URL },
      auth: { issuer: issuer.issuer, jwksUri: issuer.jwksUri },
      mcpServers,
      mrtr: { stateSecret: SECRET },
    }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([main?.close(), other?.close(), brief?.close(), authed?.close()]);
  await Promise.all([upstream?.stop(), issuer?.stop()]);
});

type Answer = Awaited<ReturnType<typeof modernPost>>;

/** POSTs and times it; a refusal must come back within REFUSAL_MS. */
async function post(url: string, message: object | string, options: ModernPostOptions = {}): Promise<Answer & { ms: number }> {
  const started = performance.now();
  const answer = await modernPost(url, message, options);
  return { ...answer, ms: performance.now() - started };
}

function expectRefused(answer: Answer & { ms: number }, status: number, code: number, message?: RegExp): void {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.body).toMatchObject({ jsonrpc: '2.0', error: { code, ...(message && { message: expect.stringMatching(message) }) } });
  expect(answer.headers.get('mcp-session-id')).toBeNull();
  expect(answer.ms).toBeLessThan(REFUSAL_MS);
}

function resultOf(answer: Answer): Record<string, unknown> {
  expect(answer.status, answer.text).toBe(200);
  const body = answer.body as { result?: Record<string, unknown> };
  expect(body.result, answer.text).toBeDefined();
  return body.result!;
}

/** A tool that answers at once and asks nothing. */
const quietCall = () => modernRequest('tools/call', { name: 'interactive__roots_changes', arguments: {} });

// ---- headers that contradict the body ----------------------------------------------------------

describe('2026 headers that contradict the body', () => {
  it('serves a request whose headers mirror its body', async () => {
    const result = resultOf(await post(main.url, quietCall()));
    expect(result).toMatchObject({ resultType: 'complete', content: [{ type: 'text' }] });
  });

  it('refuses a request without MCP-Protocol-Version with 400 and -32020', async () => {
    expectRefused(await post(main.url, quietCall(), { headers: { 'mcp-protocol-version': undefined } }), 400, -32020, /MCP-Protocol-Version/);
  });

  it('refuses an MCP-Protocol-Version that differs from the envelope with 400 and -32020', async () => {
    for (const version of ['2025-11-25', '2026-07-29', '2026-07-28.0', 'garbage']) {
      expectRefused(await post(main.url, quietCall(), { headers: { 'mcp-protocol-version': version } }), 400, -32020, /MCP-Protocol-Version/);
    }
  });

  it('refuses a request without Mcp-Method with 400 and -32020', async () => {
    expectRefused(await post(main.url, quietCall(), { headers: { 'mcp-method': undefined } }), 400, -32020, /Mcp-Method/);
  });

  it('refuses an Mcp-Method that differs from the body, case included, with 400 and -32020', async () => {
    for (const method of ['tools/list', 'Tools/Call', 'prompts/get', '']) {
      expectRefused(await post(main.url, quietCall(), { headers: { 'mcp-method': method } }), 400, -32020, /Mcp-Method/);
    }
  });

  it.each([
    ['tools/call', { name: 'interactive__roots_changes', arguments: {} }],
    ['prompts/get', { name: 'interactive__nothing' }],
    ['resources/read', { uri: 'watch://item/1' }],
  ])('refuses %s without Mcp-Name with 400 and -32020', async (method, params) => {
    expectRefused(await post(main.url, modernRequest(method, params), { headers: { 'mcp-name': undefined } }), 400, -32020, /Mcp-Name/);
  });

  it.each([
    ['tools/call', { name: 'interactive__roots_changes', arguments: {} }, 'interactive__cancellations'],
    ['prompts/get', { name: 'interactive__nothing' }, 'interactive__something'],
    ['resources/read', { uri: 'watch://item/1' }, 'watch://item/2'],
  ])('refuses %s whose Mcp-Name differs from the body with 400 and -32020', async (method, params, name) => {
    expectRefused(await post(main.url, modernRequest(method, params), { headers: { 'mcp-name': name } }), 400, -32020, /Mcp-Name/);
  });

  it('serves a tools/call whose Mcp-Name is the base64 sentinel form of the body name', async () => {
    const result = resultOf(await post(main.url, quietCall(), { headers: { 'mcp-name': base64Sentinel('interactive__roots_changes') } }));
    expect(result).toMatchObject({ resultType: 'complete' });
  });

  it('refuses a base64 sentinel Mcp-Name that decodes to another name with 400 and -32020', async () => {
    expectRefused(await post(main.url, quietCall(), { headers: { 'mcp-name': base64Sentinel('interactive__cancellations') } }), 400, -32020, /Mcp-Name/);
  });

  it.each([
    ['bad base64', '=?base64?!!notbase64!!?='],
    ['base64 of the wrong length', '=?base64?aW50ZXJhY3RpdmU?='],
    ['bytes that are not UTF-8', `=?base64?${Buffer.from([0xff, 0xfe, 0xc3, 0x28]).toString('base64')}?=`],
    ['no closing ?=', `=?base64?${Buffer.from('interactive__roots_changes').toString('base64')}`],
    ['an uppercase marker', `=?BASE64?${Buffer.from('interactive__roots_changes').toString('base64')}?=`],
  ])('refuses a sentinel Mcp-Name with %s with 400 and -32020', async (_what, header) => {
    expectRefused(await post(main.url, quietCall(), { headers: { 'mcp-name': header } }), 400, -32020, /Mcp-Name/);
  });
});

// ---- envelopes with wrong types ----------------------------------------------------------------

describe('2026 envelopes with wrong types', () => {
  it.each([
    ['a string', 'io.modelcontextprotocol/protocolVersion=2026-07-28'],
    ['an array', [MODERN_VERSION]],
    ['null', null],
    ['missing', undefined],
  ])('refuses _meta that is %s, on a request that says 2026-07-28 in its headers, with 400 and -32602', async (_what, meta) => {
    const request = modernRequest('tools/call', { name: 'interactive__roots_changes', arguments: {} });
    const params: Record<string, unknown> = { ...request.params, _meta: meta };
    if (meta === undefined) delete params._meta;
    expectRefused(await post(main.url, { ...request, params }, { headers: { 'mcp-protocol-version': MODERN_VERSION } }), 400, -32602, /_meta/);
  });

  it('refuses an envelope without a protocol version, on a request that says 2026-07-28 in its headers, with 400 and -32602', async () => {
    const request = modernRequest('tools/list', {}, envelope({}, { [META_KEY.protocolVersion]: undefined }));
    expectRefused(await post(main.url, request), 400, -32602, /protocolVersion/);
  });

  it('refuses a protocol version that is a number with 400 and -32602', async () => {
    const request = modernRequest('tools/list', {}, envelope({}, { [META_KEY.protocolVersion]: 20260728 }));
    expectRefused(await post(main.url, request, { headers: { 'mcp-protocol-version': MODERN_VERSION } }), 400, -32602, /protocolVersion/);
  });

  it.each([
    ['missing', undefined],
    ['a string', 'sampling'],
    ['an array', ['sampling']],
    ['null', null],
    ['a number', 7],
  ])('refuses clientCapabilities that are %s with 400 and -32602', async (_what, capabilities) => {
    const request = modernRequest('tools/list', {}, envelope({}, { [META_KEY.clientCapabilities]: capabilities }));
    expectRefused(await post(main.url, request), 400, -32602, /clientCapabilities/);
  });

  it.each([
    ['without a version', { name: 'client' }],
    ['with a numeric version', { name: 'client', version: 1 }],
    ['that is a string', 'client/1.0'],
  ])('refuses clientInfo %s with 400 and -32602', async (_what, clientInfo) => {
    const request = modernRequest('tools/list', {}, envelope({}, { [META_KEY.clientInfo]: clientInfo }));
    expectRefused(await post(main.url, request), 400, -32602, /clientInfo/);
  });

  it.each([['verbose'], ['DEBUG'], [3], [null]])('refuses the log level %j with 400 and -32602', async (level) => {
    const request = modernRequest('tools/list', {}, envelope({}, { [META_KEY.logLevel]: level }));
    expectRefused(await post(main.url, request), 400, -32602, /logLevel/);
  });

  it('refuses an unsupported protocol version with 400 and -32022, listing the supported ones', async () => {
    const request = modernRequest('tools/list', {}, envelope({}, { [META_KEY.protocolVersion]: '2099-01-01' }));
    const answer = await post(main.url, request);
    expectRefused(answer, 400, -32022);
    const { data } = (answer.body as { error: { data: { supported: string[]; requested: string } } }).error;
    expect(data.requested).toBe('2099-01-01');
    expect(data.supported).toEqual(expect.arrayContaining([MODERN_VERSION, '2025-11-25', '2025-06-18', '2025-03-26']));
  });

  it.each([['initialize'], ['ping'], ['logging/setLevel'], ['resources/subscribe'], ['resources/unsubscribe']])(
    'answers %s sent with an envelope with 404 and -32601',
    async (method) => {
      const params = method === 'logging/setLevel' ? { level: 'debug' } : method.startsWith('resources/') ? { uri: 'watch://item/1' } : {};
      expectRefused(await post(main.url, modernRequest(method, params)), 404, -32601);
    },
  );

  it.each([['tools/destroy'], ['sampling/createMessage'], ['x'], ['__proto__'], ['constructor']])(
    'answers the unknown method %s with 404 and -32601',
    async (method) => {
      expectRefused(await post(main.url, modernRequest(method)), 404, -32601);
    },
  );
});

// ---- requestState ------------------------------------------------------------------------------

interface Asked {
  readonly params: { name: string; arguments: Record<string, unknown> };
  readonly key: string;
  readonly state: string;
}

/** Calls a tool of the upstream that asks for sampling: the answer is input_required with sealed state. */
async function askSampling(url: string, { prompt = 'What is the capital of France?', token }: { prompt?: string; token?: string } = {}): Promise<Asked> {
  const params = { name: 'interactive__ask_sampling', arguments: { prompt } };
  const result = resultOf(await post(url, modernRequest('tools/call', params, envelope(SAMPLING)), token === undefined ? {} : { token }));
  expect(result).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) });
  const inputRequests = result.inputRequests as Record<string, { method: string }>;
  const keys = Object.keys(inputRequests);
  expect(keys).toHaveLength(1);
  expect(inputRequests[keys[0]!]).toMatchObject({ method: 'sampling/createMessage' });
  return { params, key: keys[0]!, state: result.requestState as string };
}

/** The retry of `asked` (new id, same params), with `state` in place of the one issued. */
function retryOf(asked: Asked, state: unknown = asked.state, params: Record<string, unknown> = asked.params) {
  return modernRequest('tools/call', { ...params, inputResponses: { [asked.key]: SAMPLED }, requestState: state }, envelope(SAMPLING));
}

/** The correct retry completes the call (and frees the upstream for the next test). */
async function completes(url: string, asked: Asked, token?: string): Promise<void> {
  const result = resultOf(await post(url, retryOf(asked), token === undefined ? {} : { token }));
  expect(result).toMatchObject({ resultType: 'complete' });
  expect(JSON.stringify(result.content)).toContain('Paris');
}

/**
 * Runs `attack` against a freshly parked call, then completes the call with the honest retry: the
 * refused attempts left it waiting. Should the attack fail, its failure is the one reported.
 */
async function withParkedCall(url: string, attack: (asked: Asked) => Promise<void>, token?: string): Promise<void> {
  const asked = await askSampling(url, token === undefined ? {} : { token });
  try {
    await attack(asked);
  } catch (error) {
    await completes(url, asked, token).catch(() => {});
    throw error;
  }
  await completes(url, asked, token);
}

describe('2026 requestState from a hostile client', () => {
  it('completes a call whose retry carries the answers and the state it was given', async () => {
    const asked = await askSampling(main.url);
    await completes(main.url, asked);
  });

  it('refuses a state with one character changed, wherever it is, and the call still completes', async () => {
    await withParkedCall(main.url, async (asked) => {
      const { state } = asked;
      for (const at of [0, 5, 12, Math.floor(state.length / 2), state.length - 20, state.length - 2]) {
        const tampered = state.slice(0, at) + (state[at] === 'A' ? 'B' : 'A') + state.slice(at + 1);
        expectRefused(await post(main.url, retryOf(asked, tampered)), 400, -32602, /requestState .*(failed verification|altered)/);
      }
    });
  });

  it('refuses a state whose last character is changed, even where base64 decodes both spellings to the same bytes', async () => {
    await withParkedCall(main.url, async (asked) => {
      const { state } = asked;
      // Unpadded base64url whose byte count is not a multiple of 3 ends in a character with bits the
      // decoder drops: changing only those gives another string for the same bytes.
      for (const other of BASE64URL.replace(state.at(-1)!, '')) {
        expectRefused(await post(main.url, retryOf(asked, state.slice(0, -1) + other)), 400, -32602, /requestState .*(failed verification|altered)/);
      }
    });
  });

  it('refuses a truncated state, and the call still completes', async () => {
    await withParkedCall(main.url, async (asked) => {
      for (const length of [asked.state.length - 1, asked.state.length - 16, Math.floor(asked.state.length / 2), 20, 1]) {
        expectRefused(await post(main.url, retryOf(asked, asked.state.slice(0, length))), 400, -32602, /requestState .*(failed verification|altered|truncated)/);
      }
    });
  });

  it('refuses garbage in place of a state', async () => {
    await withParkedCall(main.url, async (asked) => {
      const garbage: unknown[] = [
        '',
        'not a state at all',
        'AAAA',
        Buffer.from(Array.from({ length: 200 }, (_, index) => (index * 37) % 256)).toString('base64url'),
        `${asked.state}${asked.state}`,
        'A'.repeat(70_000),
        42,
        null,
        { state: asked.state },
        [asked.state],
      ];
      for (const state of garbage) {
        expectRefused(await post(main.url, retryOf(asked, state)), 400, -32602, /requestState .*(not one this gateway issued|failed verification)/);
      }
    });
  });

  it('refuses a state sealed by another gateway (another secret)', async () => {
    await withParkedCall(other.url, async (asked) => {
      expectRefused(await post(main.url, retryOf(asked)), 400, -32602, /failed verification|another gateway/);
    });
  });

  it('refuses a state presented by another principal', async () => {
    const [owner, intruder] = await Promise.all([issuer.token({ sub: 'state-owner' }), issuer.token({ sub: 'state-intruder' })]);
    await withParkedCall(
      authed.url,
      async (asked) => expectRefused(await post(authed.url, retryOf(asked), { token: intruder }), 400, -32602, /another principal/),
      owner,
    );
  });

  it('refuses a state presented on another tool', async () => {
    await withParkedCall(main.url, async (asked) => {
      const params = { name: 'interactive__ask_elicitation', arguments: { message: 'What is the capital of France?' } };
      expectRefused(await post(main.url, retryOf(asked, asked.state, params)), 400, -32602, /different request/);
    });
  });

  it('refuses a state presented with other arguments', async () => {
    await withParkedCall(main.url, async (asked) => {
      for (const args of [{ prompt: 'What is the capital of Spain?' }, { prompt: asked.params.arguments.prompt, extra: 1 }, {}]) {
        expectRefused(await post(main.url, retryOf(asked, asked.state, { ...asked.params, arguments: args })), 400, -32602, /different request/);
      }
    });
  });

  it('refuses a state presented after it expired, and cancels the call upstream', async () => {
    const asked = await askSampling(brief.url);
    const issuedBy = Date.now();
    // The gateway gives up on the parked call when the state's time is up, and says so.
    await expect
      .poll(() => brief.logs.some((line) => String(line.msg).includes('never retried')), { timeout: 5_000, interval: 50 })
      .toBe(true);
    // The state expires one second after it was sealed, which was before the answer reached us.
    await expect.poll(() => Date.now() - issuedBy, { timeout: 2_000, interval: 20 }).toBeGreaterThan(1_000);
    expectRefused(await post(brief.url, retryOf(asked)), 400, -32602, /expired/);
  });

  it('refuses the same state replayed after it was used', async () => {
    const asked = await askSampling(main.url);
    await completes(main.url, asked);
    expectRefused(await post(main.url, retryOf(asked)), 400, -32602, /no longer waiting|used already/);
  });

  it('lets only one of two simultaneous retries with the same state resume the call', async () => {
    const asked = await askSampling(main.url);
    const answers = await Promise.all([post(main.url, retryOf(asked)), post(main.url, retryOf(asked))]);
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses, answers.map((answer) => answer.text).join('\n')).toEqual([200, 400]);
    const refused = answers.find((answer) => answer.status === 400)!;
    expect(refused.body).toMatchObject({ error: { code: -32602, message: expect.stringMatching(/no longer waiting/) } });
    expect(JSON.stringify(resultOf(answers.find((answer) => answer.status === 200)!).content)).toContain('Paris');
  });

  it('asks again when the retry leaves the question unanswered, and then refuses the earlier round\'s state', async () => {
    const asked = await askSampling(main.url);
    const unanswered = modernRequest('tools/call', { ...asked.params, inputResponses: {}, requestState: asked.state }, envelope(SAMPLING));
    const again = resultOf(await post(main.url, unanswered));
    expect(again).toMatchObject({ resultType: 'input_required', inputRequests: { [asked.key]: { method: 'sampling/createMessage' } } });
    const next = { ...asked, state: again.requestState as string };
    expect(next.state).not.toBe(asked.state);
    try {
      expectRefused(await post(main.url, retryOf(asked)), 400, -32602, /no longer waiting/);
    } finally {
      await completes(main.url, next);
    }
  });

  it('hands an answer that is no sampling result to the upstream, whose refusal ends the call', async () => {
    for (const answer of [{ bogus: true }, { role: 'assistant' }]) {
      const asked = await askSampling(main.url);
      const request = modernRequest('tools/call', { ...asked.params, inputResponses: { [asked.key]: answer, unasked: 1 }, requestState: asked.state }, envelope(SAMPLING));
      const result = resultOf(await post(main.url, request));
      expect(result).toMatchObject({ resultType: 'complete', isError: true });
      expect(JSON.stringify(result.content)).toMatch(/Invalid sampling result/);
    }
  });

  it('refuses inputResponses that are not an object', async () => {
    await withParkedCall(main.url, async (asked) => {
      for (const inputResponses of ['Paris', [SAMPLED], 7]) {
        const request = modernRequest('tools/call', { ...asked.params, inputResponses, requestState: asked.state }, envelope(SAMPLING));
        expectRefused(await post(main.url, request), 400, -32602, /inputResponses/);
      }
    });
  });
});

// ---- capabilities and sessions -----------------------------------------------------------------

describe('2026 capabilities and sessions', () => {
  it.each([
    ['sampling', 'interactive__ask_sampling', { prompt: 'hello' }],
    ['elicitation', 'interactive__ask_elicitation', { message: 'hello' }],
  ])('refuses a call whose upstream needs %s from a client that did not declare it with 400 and -32021', async (capability, name, args) => {
    const answer = await post(main.url, modernRequest('tools/call', { name, arguments: args }, envelope({})));
    expectRefused(answer, 400, -32021);
    expect((answer.body as { error: { data: unknown } }).error.data).toEqual({ requiredCapabilities: { [capability]: {} } });
  });

  it("refuses an upstream's roots/list to a client that did not declare roots, as a 2025 client would, and answers the call with what the upstream made of it", async () => {
    // Roots are context a server may ask for at any time, not a step of one call: a roots/list
    // tied to this call only because it was the one in flight must not fail it (modern-front.test.ts).
    const answer = await post(main.url, modernRequest('tools/call', { name: 'interactive__ask_roots', arguments: {} }, envelope({})));
    const result = resultOf(answer);
    expect(result).toMatchObject({ resultType: 'complete', isError: true });
    expect(JSON.stringify(result.content)).toContain('roots/list');
  });

  it('serves a request that carries both an envelope and an Mcp-Session-Id statelessly, ignoring the session', async () => {
    const { sessionId } = await openSession(main.url);
    for (const header of [sessionId, 'AAAAAAAAAAAAAAAAAAAAAA', 'not-a-session']) {
      const answer = await post(main.url, quietCall(), { headers: { 'mcp-session-id': header } });
      expect(resultOf(answer)).toMatchObject({ resultType: 'complete' });
      expect(answer.headers.get('mcp-session-id')).toBeNull();
    }
    // The 2025 session whose id rode along is untouched.
    const legacy = await rawPost(main.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { sessionId });
    expect(legacy.status).toBe(200);
    expect(JSON.stringify(legacy.body)).toContain('interactive__roots_changes');
    expect(JSON.stringify(legacy.body)).not.toContain('resultType');
  });
});

// ---- afterwards --------------------------------------------------------------------------------

describe('after all of that', () => {
  it('still serves a well-behaved 2026 client, input_required rounds included', async () => {
    const client = await connectModern(main.url, { capabilities: { sampling: {} } });
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN_VERSION);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('interactive__ask_sampling');
      const result = await client.callTool({ name: 'interactive__ask_sampling', arguments: { prompt: 'still there?' } });
      expect(JSON.stringify(result.content)).toContain(SAMPLED_TEXT);
    } finally {
      await client.close();
    }
  });

  it('logged no internal failure of a 2026 request on any gateway', () => {
    for (const gateway of [main, other, brief, authed]) {
      expect(gateway.logs.filter((line) => line.level === 'error' || line.level === 'fatal')).toEqual([]);
    }
  });
});
