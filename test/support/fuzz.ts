// Message generators for the fuzz test: a seeded PRNG (so a failure reproduces from its seed),
// random JSON values of every type, structural and byte-level mutations of well-formed MCP
// messages, and the hostile bodies the gateway must survive (deep nesting, huge strings, invalid
// UTF-8, batches, oversize bodies).

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
export function prng(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const random: Random = {
    next,
    int: (max) => Math.floor(next() * max),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    chance: (p) => next() < p,
  };
  return random;
}

export interface Random {
  next(): number;
  /** 0 <= n < max */
  int(max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
}

const STRINGS = [
  '',
  'a',
  'everything__echo',
  'everything__get-sum',
  'demo+everything://resource/static/document/architecture.md',
  '__proto__',
  'constructor',
  '\u0000',
  '\ud800',
  '😀'.repeat(5),
  '"quoted"\\',
  'ünïcödé',
  '%s%n%x',
  '../../etc/passwd',
  '${SECRET}',
  ' '.repeat(40),
];

const NUMBERS = [0, -0, 1, -1, 2 ** 31, 2 ** 53, -(2 ** 53), 1.5, 1e308, -1e308, 5e-324];

export function randomJson(random: Random, depth = 3): unknown {
  const kind = random.int(depth > 0 ? 8 : 5);
  switch (kind) {
    case 0:
      return null;
    case 1:
      return random.chance(0.5);
    case 2:
      return random.pick(NUMBERS);
    case 3:
      return random.pick(STRINGS);
    case 4:
      return random.chance(0.5) ? random.int(1000) : `s${random.int(1000)}`;
    case 5:
      return Array.from({ length: random.int(4) }, () => randomJson(random, depth - 1));
    default: {
      const object: Record<string, unknown> = {};
      for (let index = random.int(4); index > 0; index--) object[random.pick(['name', 'uri', 'arguments', 'cursor', '_meta', 'ref', 'level', random.pick(STRINGS)])] = randomJson(random, depth - 1);
      return object;
    }
  }
}

/** Tools of server-everything that answer at once without asking the client anything. */
export const SAFE_TOOLS = [
  'everything__echo',
  'everything__get-sum',
  'everything__get-tiny-image',
  'everything__get-annotated-message',
  'everything__get-structured-content',
  'everything__get-resource-links',
  'everything__get-resource-reference',
];

/** Well-formed messages to start mutations from. */
export function corpus(random: Random): Record<string, unknown>[] {
  const id = random.chance(0.5) ? random.int(1_000_000) : `id-${random.int(1_000_000)}`;
  return [
    { jsonrpc: '2.0', id, method: 'ping' },
    { jsonrpc: '2.0', id, method: 'tools/list' },
    { jsonrpc: '2.0', id, method: 'tools/list', params: { cursor: 'bogus' } },
    { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'hello' } } },
    { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'everything__get-sum', arguments: { a: 1, b: 2 } } },
    { jsonrpc: '2.0', id, method: 'prompts/list' },
    { jsonrpc: '2.0', id, method: 'prompts/get', params: { name: 'everything__simple-prompt' } },
    { jsonrpc: '2.0', id, method: 'prompts/get', params: { name: 'everything__args-prompt', arguments: { city: 'Paris' } } },
    { jsonrpc: '2.0', id, method: 'resources/list' },
    { jsonrpc: '2.0', id, method: 'resources/templates/list' },
    { jsonrpc: '2.0', id, method: 'resources/read', params: { uri: 'demo+everything://resource/static/document/architecture.md' } },
    { jsonrpc: '2.0', id, method: 'resources/read', params: { uri: 'demo+everything://resource/dynamic/text/7' } },
    { jsonrpc: '2.0', id, method: 'resources/subscribe', params: { uri: 'demo+everything://resource/dynamic/text/7' } },
    { jsonrpc: '2.0', id, method: 'resources/unsubscribe', params: { uri: 'demo+everything://resource/dynamic/text/7' } },
    { jsonrpc: '2.0', id, method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'everything__args-prompt' }, argument: { name: 'city', value: 'P' } } },
    { jsonrpc: '2.0', id, method: 'logging/setLevel', params: { level: 'debug' } },
    { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } },
    { jsonrpc: '2.0', id, result: {} },
    { jsonrpc: '2.0', id, error: { code: -1, message: 'client error' } },
  ];
}

/** Replaces, deletes or adds one value somewhere in the message: wrong types, missing fields. */
export function mutateStructure(random: Random, message: unknown, rounds = 1 + random.int(3)): unknown {
  let result = structuredClone(message);
  for (let round = 0; round < rounds; round++) result = mutateOnce(random, result, 0);
  return result;
}

function mutateOnce(random: Random, node: unknown, depth: number): unknown {
  if (typeof node !== 'object' || node === null || depth > 4 || random.chance(0.25)) {
    return random.chance(0.8) ? randomJson(random) : undefined;
  }
  if (Array.isArray(node)) {
    if (node.length === 0 || random.chance(0.2)) return [...node, randomJson(random)];
    const index = random.int(node.length);
    const copy = [...node];
    copy[index] = mutateOnce(random, copy[index], depth + 1);
    return copy;
  }
  const object = node as Record<string, unknown>;
  const keys = Object.keys(object);
  if (keys.length === 0 || random.chance(0.15)) return { ...object, [random.pick(['id', 'method', 'params', 'jsonrpc', 'result', 'error', random.pick(STRINGS)])]: randomJson(random) };
  const key = random.pick(keys);
  const mutated = mutateOnce(random, object[key], depth + 1);
  const copy = { ...object };
  if (mutated === undefined) delete copy[key];
  else copy[key] = mutated;
  return copy;
}

const INVALID_UTF8: readonly number[][] = [[0xff], [0xc3, 0x28], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82]];
const JUNK = ['{', '}', '[', ']', '"', ',', ':', '\\', '\u0000', 'null', 'true', '1e999', '-', '\ufeff', '\n', '"\\u', '/*'];

/** Byte-level damage to a serialized message: cuts, insertions, duplications, invalid UTF-8. */
export function mutateBytes(random: Random, text: string): Uint8Array {
  let bytes = Buffer.from(text, 'utf8');
  for (let round = 1 + random.int(3); round > 0; round--) {
    const at = random.int(bytes.length + 1);
    switch (random.int(5)) {
      case 0:
        bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(Math.min(bytes.length, at + 1 + random.int(8)))]);
        break;
      case 1:
        bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(random.pick(JUNK)), bytes.subarray(at)]);
        break;
      case 2:
        bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(random.pick(INVALID_UTF8)), bytes.subarray(at)]);
        break;
      case 3:
        bytes = bytes.subarray(0, at);
        break;
      default: {
        const end = Math.min(bytes.length, at + random.int(16));
        bytes = Buffer.concat([bytes.subarray(0, end), bytes.subarray(at, end), bytes.subarray(end)]);
      }
    }
  }
  return bytes;
}

/** The hostile bodies of the issue, each kind at least once per cycle. */
export function hostileBodies(random: Random, maxBodyBytes: number): { kind: string; body: string | Uint8Array }[] {
  const id = random.int(1000);
  return [
    { kind: 'deep-array', body: '['.repeat(maxBodyBytes / 2 - 8) + ']'.repeat(maxBodyBytes / 2 - 8) },
    { kind: 'deep-array-unclosed', body: '['.repeat(maxBodyBytes - 10) },
    { kind: 'deep-object', body: '{"a":'.repeat(5_000) + '1' + '}'.repeat(5_000) },
    { kind: 'deep-params', body: `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"everything__echo","arguments":{"message":${'['.repeat(70)}${']'.repeat(70)}}}}` },
    { kind: 'huge-string', body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'x'.repeat(maxBodyBytes - 200) } } }) },
    { kind: 'huge-method', body: JSON.stringify({ jsonrpc: '2.0', id, method: 'm'.repeat(maxBodyBytes - 100) }) },
    { kind: 'oversize', body: JSON.stringify({ jsonrpc: '2.0', id, method: 'ping', params: { pad: 'x'.repeat(maxBodyBytes) } }) },
    { kind: 'invalid-utf8', body: Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}}')]) },
    { kind: 'lone-surrogate-escape', body: `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"everything__echo","arguments":{"message":"\\ud800"}}}` },
    { kind: 'empty', body: '' },
    { kind: 'not-an-object', body: random.pick(['1', '"x"', 'null', 'true', '[]', '[1,2]', '{}']) },
    { kind: 'batch', body: JSON.stringify(Array.from({ length: 1 + random.int(20) }, () => random.pick(corpus(random)))) },
    { kind: 'batch-of-junk', body: JSON.stringify(Array.from({ length: 1 + random.int(50) }, () => randomJson(random))) },
    { kind: 'huge-id', body: `{"jsonrpc":"2.0","id":${'9'.repeat(5000)},"method":"ping"}` },
    { kind: 'float-id', body: `{"jsonrpc":"2.0","id":1.5,"method":"ping"}` },
    { kind: 'proto-keys', body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"__proto__":{"name":"everything__echo"},"constructor":{"prototype":{"x":1}}}}' },
    { kind: 'duplicate-keys', body: '{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call","params":{"name":"everything__get-sum","arguments":{"a":1,"b":2}}}' },
    { kind: 'bom', body: '\ufeff{"jsonrpc":"2.0","id":1,"method":"ping"}' },
    { kind: 'wide-array', body: JSON.stringify({ jsonrpc: '2.0', id, method: 'ping', params: { list: Array.from({ length: Math.floor(maxBodyBytes / 3) }, () => 0) } }) },
  ];
}

// ---- 2026-07-28: per-request envelopes and the headers that mirror the body ------------------

export const MODERN_VERSION = '2026-07-28';
const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
} as const;
const CAPABILITIES = [{}, { sampling: {} }, { elicitation: { form: {} } }, { roots: {} }, { sampling: {}, elicitation: {}, roots: { listChanged: true } }];
/** A real state needs a parked call; these are what a client can make up. */
const STATES = ['', 'AAAA', 'not-a-state', 'A'.repeat(300), Buffer.from('{"v":1,"b":{"kind":"park"}}').toString('base64url')];
const NAMED_BY: ReadonlyMap<string, string> = new Map([
  ['tools/call', 'name'],
  ['prompts/get', 'name'],
  ['resources/read', 'uri'],
  ['tasks/get', 'taskId'],
  ['tasks/update', 'taskId'],
  ['tasks/cancel', 'taskId'],
]);
/** Longer Mcp-Name values are left out (the body gets -32020): Node refuses headers over 16 KiB. */
const MAX_HEADER_VALUE = 4096;

export function modernEnvelope(random: Random): Record<string, unknown> {
  return {
    [META.protocolVersion]: MODERN_VERSION,
    [META.clientCapabilities]: random.pick(CAPABILITIES),
    ...(random.chance(0.7) && { [META.clientInfo]: { name: 'fuzz', version: '1' } }),
    ...(random.chance(0.2) && { [META.logLevel]: random.pick(['debug', 'info', 'error']) }),
    ...(random.chance(0.1) && { progressToken: `p${random.int(1000)}` }),
  };
}

/** Well-formed 2026 requests, each with its own envelope, including the methods 2026 removed. */
export function modernCorpus(random: Random): Record<string, unknown>[] {
  const id = random.chance(0.5) ? random.int(1_000_000) : `id-${random.int(1_000_000)}`;
  const request = (method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: modernEnvelope(random) } });
  return [
    request('server/discover'),
    request('tools/list'),
    request('tools/list', { cursor: 'bogus' }),
    request('tools/call', { name: 'everything__echo', arguments: { message: 'hello' } }),
    request('tools/call', { name: 'everything__get-sum', arguments: { a: 1, b: 2 } }),
    request('tools/call', { name: 'everything__echo', arguments: { message: 'retry' }, inputResponses: { 'sampling-1': {} }, requestState: random.pick(STATES) }),
    request('prompts/list'),
    request('prompts/get', { name: 'everything__args-prompt', arguments: { city: 'Paris' } }),
    request('resources/list'),
    request('resources/templates/list'),
    request('resources/read', { uri: 'demo+everything://resource/static/document/architecture.md' }),
    request('resources/read', { uri: 'demo+everything://resource/dynamic/text/7' }),
    request('completion/complete', { ref: { type: 'ref/prompt', name: 'everything__args-prompt' }, argument: { name: 'city', value: 'P' } }),
    request('ping'),
    request('initialize', { protocolVersion: MODERN_VERSION, capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } }),
    request('logging/setLevel', { level: 'debug' }),
    request('resources/subscribe', { uri: 'demo+everything://resource/dynamic/text/7' }),
  ];
}

/** Header values as fetch will send them: printable ASCII only. */
function headerSafe(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, '?').trim();
}

function base64Sentinel(value: string): string {
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** The headers a conforming 2026 client sends for `message`, whatever shape mutation left it in. */
export function modernHeaders(message: unknown): Record<string, string> {
  const object = typeof message === 'object' && message !== null && !Array.isArray(message) ? (message as Record<string, unknown>) : {};
  const params = typeof object.params === 'object' && object.params !== null ? (object.params as Record<string, unknown>) : {};
  const meta = typeof params._meta === 'object' && params._meta !== null ? (params._meta as Record<string, unknown>) : {};
  const version = meta[META.protocolVersion];
  const headers: Record<string, string> = { 'mcp-protocol-version': typeof version === 'string' ? headerSafe(version) : MODERN_VERSION };
  if (typeof object.method === 'string') headers['mcp-method'] = headerSafe(object.method).slice(0, MAX_HEADER_VALUE);
  const field = typeof object.method === 'string' ? NAMED_BY.get(object.method) : undefined;
  const name = field === undefined ? undefined : params[field];
  if (typeof name === 'string') {
    const plain = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(name) && !name.startsWith('=?base64?');
    const value = plain ? name : base64Sentinel(name);
    if (value.length <= MAX_HEADER_VALUE) headers['mcp-name'] = value;
  }
  return headers;
}

/** Makes the mirrored headers lie: one left out, or one that says something else. */
export function mutateModernHeaders(random: Random, headers: Record<string, string>): Record<string, string> {
  const copy = { ...headers };
  const name = random.pick(['mcp-protocol-version', 'mcp-method', 'mcp-name']);
  if (random.chance(0.3)) {
    delete copy[name];
    return copy;
  }
  const body = headers['mcp-name'] ?? 'everything__echo';
  const values: Record<string, readonly string[]> = {
    'mcp-protocol-version': ['2025-11-25', '2025-06-18', '2099-01-01', '2026-07-28x', '', 'x'.repeat(3000)],
    'mcp-method': ['tools/list', 'Tools/Call', 'initialize', 'server/discover', '', 'm'.repeat(3000)],
    'mcp-name': [
      base64Sentinel(body),
      base64Sentinel(`${body}x`),
      '=?base64?!!!?=',
      `=?base64?${Buffer.from(body).toString('base64')}`,
      `=?base64?${Buffer.from([0xff, 0xfe, 0xfd]).toString('base64')}?=`,
      `=?base64?${Buffer.from(body).toString('base64').replace(/=+$/, '')}?=`,
      body.toUpperCase(),
      'n'.repeat(3000),
    ],
  };
  copy[name] = random.pick(values[name]!);
  return copy;
}

/** 2026 bodies that break one rule each; `expected` is the status the spec gives them, when fixed. */
export function modernHostileBodies(random: Random, maxBodyBytes: number): { kind: string; body: string; headers: Record<string, string>; expected?: number }[] {
  const id = random.int(1000);
  const build = (method: string, params: Record<string, unknown>, meta: unknown = modernEnvelope(random)) => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } });
  const echo = { name: 'everything__echo', arguments: { message: 'hostile' } };
  const entry = (kind: string, message: Record<string, unknown>, expected?: number, headers: Record<string, string> = modernHeaders(message)) => ({
    kind,
    body: JSON.stringify(message),
    headers,
    ...(expected !== undefined && { expected }),
  });
  const nested = (depth: number): unknown => (depth === 0 ? {} : { a: nested(depth - 1) });
  const manyKeys = Object.fromEntries(Array.from({ length: 2_000 }, (_, index) => [`com.example/k${index}`, index]));
  return [
    entry('meta-not-object', build('tools/list', {}, random.pick(['x', 1, [], null, true])), 400, { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/list' }),
    entry('meta-missing-version', build('tools/list', {}, { [META.clientCapabilities]: {} }), 400),
    entry('version-number', build('tools/list', {}, { ...modernEnvelope(random), [META.protocolVersion]: 20260728 }), 400),
    entry('version-unsupported', build('tools/list', {}, { ...modernEnvelope(random), [META.protocolVersion]: '2099-01-01' }), 400),
    entry('capabilities-not-object', build('tools/list', {}, { ...modernEnvelope(random), [META.clientCapabilities]: random.pick(['all', [], null, 0]) }), 400),
    entry('client-info-without-version', build('tools/list', {}, { ...modernEnvelope(random), [META.clientInfo]: { name: 'fuzz' } }), 400),
    entry('log-level-unknown', build('tools/list', {}, { ...modernEnvelope(random), [META.logLevel]: 'verbose' }), 400),
    entry('huge-client-info', build('tools/list', {}, { ...modernEnvelope(random), [META.clientInfo]: { name: 'x'.repeat(maxBodyBytes - 1_000), version: '1' } }), 200),
    entry('huge-request-state', build('tools/call', { ...echo, inputResponses: {}, requestState: 'A'.repeat(maxBodyBytes - 1_000) }), 400),
    entry('huge-name', build('tools/call', { name: 'n'.repeat(maxBodyBytes - 1_000), arguments: {} }), 400),
    entry('deep-capabilities', build('tools/list', {}, { ...modernEnvelope(random), [META.clientCapabilities]: nested(50) }), 200),
    entry('too-deep-meta', build('tools/list', {}, { ...modernEnvelope(random), [META.clientCapabilities]: nested(100) }), 400),
    entry('many-meta-keys', build('tools/list', {}, { ...modernEnvelope(random), ...manyKeys }), 200),
    entry('method-mismatch', build('tools/call', echo), 400, { ...modernHeaders(build('tools/call', echo)), 'mcp-method': 'tools/list' }),
    entry('name-base64', build('tools/call', echo), 200, { ...modernHeaders(build('tools/call', echo)), 'mcp-name': base64Sentinel(echo.name) }),
    entry('name-base64-broken', build('tools/call', echo), 400, { ...modernHeaders(build('tools/call', echo)), 'mcp-name': '=?base64?ZXZlcnl0aGluZ19fZWNobw' }),
    entry('removed-method', build(random.pick(['ping', 'initialize', 'logging/setLevel', 'resources/unsubscribe']), {}), 404),
    entry('unknown-method', build(random.pick(['tools/destroy', 'constructor', '__proto__', 'x']), {}), 404),
    entry('request-state-junk', build('tools/call', { ...echo, inputResponses: nested(20), requestState: random.pick(STATES) }), 400),
    entry('envelope-and-session', build('tools/call', echo), 200, { ...modernHeaders(build('tools/call', echo)), 'mcp-session-id': 'AAAAAAAAAAAAAAAAAAAAAA' }),
  ];
}
