// Where an upstream answer's result is in the text it came in (result-text.ts). The one promise:
// whatever text is found, it is the text of the parsed result and nothing else, so a response
// written around it means what the parsed answer means. Checked on the spellings that matter and
// on thousands of generated answers, many of them spelled to mislead (repeated and escaped
// members, member names inside the result, whitespace, odd numbers and ids).
import { describe, expect, it } from 'vitest';
import { completeResult } from '../../src/gateway/modern/shape.js';
import { presetJsonText, responseBody, responseJson } from '../../src/protocol/json-text.js';
import { resultTextIn } from '../../src/protocol/result-text.js';

const RESULT = '{"content":[{"type":"text","text":"Echo: hi"}]}';

function found(line: string): string | undefined {
  return resultTextIn(line, JSON.parse(line) as Record<string, unknown>);
}

describe('the text of an answer\'s result', () => {
  it('is found in the TypeScript and the Python SDK\'s member order, for string and number ids', () => {
    expect(found(`{"result":${RESULT},"jsonrpc":"2.0","id":"sb:12"}`)).toBe(RESULT);
    expect(found(`{"jsonrpc":"2.0","id":"sb:12","result":${RESULT}}`)).toBe(RESULT);
    expect(found(`{"result":${RESULT},"jsonrpc":"2.0","id":7}`)).toBe(RESULT);
    expect(found(`{"jsonrpc":"2.0","id":0,"result":{}}`)).toBe('{}');
    expect(found(`{"result":{"a": [1, 2] },"jsonrpc":"2.0","id":"a.b-c_d:1"}`)).toBe('{"a": [1, 2] }');
  });

  it('keeps the upstream\'s spelling of what it holds', () => {
    expect(found('{"result":{"n":1.50,"m":2E3,"s":"a\\nb\\"c"},"jsonrpc":"2.0","id":1}')).toBe('{"n":1.50,"m":2E3,"s":"a\\nb\\"c"}');
  });

  it.each([
    ['whitespace between members', `{"result": ${RESULT}, "jsonrpc": "2.0", "id": 1}`],
    ['another order', `{"id":1,"jsonrpc":"2.0","result":${RESULT}}`],
    ['a member JSON-RPC does not have', `{"result":${RESULT},"note":1,"jsonrpc":"2.0","id":1}`],
    ['the result repeated', `{"result":{"a":1},"result":${RESULT},"jsonrpc":"2.0","id":1}`],
    ['the result repeated behind an escape', `{"result":{"a":1},"r\\u0065sult":${RESULT},"jsonrpc":"2.0","id":1}`],
    ['the id repeated', `{"result":${RESULT},"id":"sb:0","jsonrpc":"2.0","id":1}`],
    ['the version repeated', `{"result":${RESULT},"jsonrpc":"1.0","jsonrpc":"2.0","id":1}`],
    ['the Python order with the id repeated', `{"jsonrpc":"2.0","id":1,"result":${RESULT},"id":2}`],
    ['a member name inside the result', '{"result":{"id":1},"jsonrpc":"2.0","id":1}'],
    ['an escape inside the result', '{"result":{"s":"caf\\u00e9"},"jsonrpc":"2.0","id":1}'],
    ['an id spelled with an escape', `{"result":${RESULT},"jsonrpc":"2.0","id":"s\\u0062:1"}`],
    ['an id JSON escapes', `{"result":${RESULT},"jsonrpc":"2.0","id":"a\\"b"}`],
    ['a fractional id', `{"result":${RESULT},"jsonrpc":"2.0","id":1.5}`],
    ['an id spelled as a float', `{"result":${RESULT},"jsonrpc":"2.0","id":1.0}`],
    ['a null id', `{"result":${RESULT},"jsonrpc":"2.0","id":null}`],
    ['a result that is not an object', '{"result":5,"jsonrpc":"2.0","id":1}'],
    ['a result that is an array', '{"result":[1],"jsonrpc":"2.0","id":1}'],
    ['whitespace after the result', `{"result":${RESULT} ,"jsonrpc":"2.0","id":1}`],
    ['a line break inside the result (an HTTP body may have one)', '{"result":{"a":1,\n"b":2},"jsonrpc":"2.0","id":1}'],
    ['a carriage return inside the result', '{"result":{"a":1,\r"b":2},"jsonrpc":"2.0","id":1}'],
    ['whitespace around the result, in the Python order', `{"jsonrpc":"2.0","id":1,"result":${RESULT} }`],
    ['an error', '{"error":{"code":-32601,"message":"no"},"jsonrpc":"2.0","id":1}'],
  ])('is not taken from an answer with %s', (_, line) => {
    expect(found(line)).toBeUndefined();
  });

  it('is always the text of the parsed result, over generated answers spelled to mislead', () => {
    const random = seeded(20261126);
    let taken = 0;
    for (let round = 0; round < 10_000; round += 1) {
      const line = answerLine(random);
      const answer = JSON.parse(line) as Record<string, unknown>;
      const text = resultTextIn(line, answer);
      if (text === undefined) continue;
      taken += 1;
      expect(JSON.parse(text), line).toEqual(answer.result);
      // One line, as an SSE event's data must be.
      expect(text).not.toMatch(/[\n\r]/);
      // And a response written around it is the one JSON.stringify of the parsed answer would mean.
      const result = presetJsonText(answer.result as Record<string, unknown>, text);
      expect(JSON.parse(responseJson({ jsonrpc: '2.0', id: 'client-1', result }))).toEqual({ jsonrpc: '2.0', id: 'client-1', result: answer.result });
      // The same for the 2026 shape, which adds its members to the text.
      const shaped = completeResult('tools/call', result, () => ({ listsFreshForMs: 0, privateViews: false }));
      expect(JSON.parse(responseJson({ jsonrpc: '2.0', id: 2, result: shaped }))).toEqual({ jsonrpc: '2.0', id: 2, result: shaped });
    }
    // The generator must produce enough answers that are taken for the check to mean something.
    expect(taken).toBeGreaterThan(1000);
  });
});

describe('a result given its text', () => {
  it('is written from that text, as one string, and is frozen', () => {
    const result = presetJsonText({ n: 1.5 }, '{"n":1.50}');
    expect(Object.isFrozen(result)).toBe(true);
    expect(responseBody({ jsonrpc: '2.0', id: 3, result })).toBe('{"jsonrpc":"2.0","id":3,"result":{"n":1.50}}');
  });

  it('does not lend it to a copy, which is written from its own value', () => {
    const result = presetJsonText({ n: 1.5 }, '{"n":1.50}');
    const copy = { ...result, m: 2 };
    expect(responseBody({ jsonrpc: '2.0', id: 3, result: copy })).toBe('{"jsonrpc":"2.0","id":3,"result":{"n":1.5,"m":2}}');
  });

  it('keeps it through the shape of a 2026 result, with what that adds', () => {
    const cache = () => ({ listsFreshForMs: 1000, privateViews: false });
    const text = '{"content":[{"type":"text","text":"hi"}],"structuredContent":{"n":1.50}}';
    const shaped = completeResult('tools/call', presetJsonText(JSON.parse(text) as Record<string, unknown>, text), cache);
    const written = responseBody({ jsonrpc: '2.0', id: 'm-1', result: shaped });
    expect(typeof written).toBe('string');
    expect(written).toContain('"structuredContent":{"n":1.50}');
    expect(JSON.parse(written as string)).toEqual({ jsonrpc: '2.0', id: 'm-1', result: shaped });
    // An empty result, and one with _meta of its own (whose text the shape must not reuse).
    const empty = completeResult('tools/call', presetJsonText({}, '{}'), cache);
    expect(responseJson({ jsonrpc: '2.0', id: 1, result: empty })).toBe(JSON.stringify({ jsonrpc: '2.0', id: 1, result: empty }));
    const withMeta = completeResult('tools/call', presetJsonText({ _meta: { a: 1 } }, '{"_meta":{"a":1}}'), cache);
    expect(responseJson({ jsonrpc: '2.0', id: 1, result: withMeta })).toBe(JSON.stringify({ jsonrpc: '2.0', id: 1, result: withMeta }));
  });

  it('shows nothing of it to deep equality, Object.keys or JSON.stringify', () => {
    const result = presetJsonText({ n: 1 }, '{"n":1}');
    expect(result).toEqual({ n: 1 });
    expect(Object.keys(result)).toEqual(['n']);
    expect(Reflect.ownKeys(result)).toEqual(['n']);
    expect(JSON.stringify(result)).toBe('{"n":1}');
  });
});

/** A small PRNG (mulberry32): the same answers on every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** A JSON value's text, sometimes with names and escapes that mislead, sometimes with odd spacing or numbers. */
function valueText(random: () => number, depth: number): string {
  const kind = depth > 2 ? pick(random, ['string', 'number', 'literal']) : pick(random, ['object', 'object', 'array', 'string', 'number', 'literal']);
  switch (kind) {
    case 'object': {
      const keys = Array.from({ length: Math.floor(random() * 4) }, () => pick(random, ['type', 'text', 'content', 'id', 'result', 'jsonrpc', 'r\\u0065sult', 'a"b', 'x']));
      return `{${keys.map((key) => `${JSON.stringify(key).replace('\\\\u', '\\u')}:${valueText(random, depth + 1)}`).join(pick(random, [',', ', ']))}}`;
    }
    case 'array':
      return `[${Array.from({ length: Math.floor(random() * 3) }, () => valueText(random, depth + 1)).join(',')}]`;
    case 'string':
      return pick(random, ['"plain"', '"\\"result\\":1"', '"id"', '"caf\\u00e9"', '"a\\nb"', '"},\\"jsonrpc\\":\\"2.0\\",\\"id\\":1}"', '""']);
    case 'number':
      return pick(random, ['0', '-1', '1.50', '2E3', '1e400', '12345678901234567890']);
    default:
      return pick(random, ['true', 'false', 'null']);
  }
}

/** An answer line: mostly in one of the SDKs' shapes, with members repeated, added or spaced now and then. */
function answerLine(random: () => number): string {
  const space = () => pick(random, ['', '', '', ' ', '\n']);
  const result = pick(random, [
    () => `{${space()}"content":[${valueText(random, 1)}]${random() < 0.5 ? `,"structuredContent":${valueText(random, 1)}` : ''}${space()}}`,
    () => `{${space()}}`,
    () => `${space()}${valueText(random, 0)}${space()}`,
  ])();
  const id = pick(random, ['1', '42', '"sb:7"', '"sb:7"', '1.0', '"s\\u0062:7"', 'null']);
  const members = random() < 0.5 ? [`"result":${result}`, '"jsonrpc":"2.0"', `"id":${id}`] : ['"jsonrpc":"2.0"', `"id":${id}`, `"result":${result}`];
  if (random() < 0.3) {
    const extra = pick(random, [`"result":${valueText(random, 1)}`, '"id":"sb:0"', '"jsonrpc":"1.0"', '"note":1', `"r\\u0065sult":${valueText(random, 1)}`]);
    members.splice(Math.floor(random() * (members.length + 1)), 0, extra);
  }
  return `{${members.join(random() < 0.1 ? ', ' : ',')}}`;
}
