// The pages of a catalogue view (view-pages.ts) are made once per view and written from their items'
// texts (json-text.ts): what goes on the wire must be what JSON.stringify of the same result would
// write, on both eras' paths, and a client's made-up cursors must not fill the cache.
import { describe, expect, it } from 'vitest';
import { completeResult } from '../../src/gateway/modern/shape.js';
import { ViewPages } from '../../src/gateway/catalogue/view-pages.js';
import { presetJson, presetJsonWith, presetTextOf, responseBody, responseJson, type JsonPieces } from '../../src/protocol/json-text.js';

function tools(count: number): { item: Record<string, unknown> }[] {
  return Array.from({ length: count }, (_, index) => ({
    item: {
      name: `server__tool_${index}`,
      description: `Tool "${index}" \u2014 with characters JSON escapes: \n \\ \u0001`,
      inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    },
  }));
}

/** A body as the node:http fast path writes it: the pieces' bytes one after another. */
function written(body: string | JsonPieces): string {
  return typeof body === 'string' ? body : Buffer.concat(body.map((piece) => (typeof piece === 'string' ? Buffer.from(piece) : piece))).toString('utf8');
}

function cursorFor(offset: number): string {
  return Buffer.from(JSON.stringify({ k: 'tools', o: offset })).toString('base64url');
}

describe('pages of a view', () => {
  it('are written as JSON.stringify writes them, first, middle and last page', () => {
    const pages = new ViewPages();
    const entries = tools(25);
    let cursor: unknown;
    const seen: string[] = [];
    do {
      const page = pages.page('tools', entries, cursor, 10);
      const response = { jsonrpc: '2.0' as const, id: 'r-1', result: page };
      expect(responseJson(response)).toBe(JSON.stringify(response));
      seen.push(...(page.tools as { name: string }[]).map((tool) => tool.name));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(seen).toEqual(entries.map((entry) => entry.item.name));
  });

  it('write the same text on every call, on both eras\' paths, once their text is kept', () => {
    const pages = new ViewPages();
    const page = pages.page('tools', tools(30), undefined, 10);
    const cache = () => ({ listsFreshForMs: 1000, privateViews: false });
    for (let call = 0; call < 3; call++) {
      const legacy = { jsonrpc: '2.0' as const, id: call, result: page };
      expect(responseJson(legacy)).toBe(JSON.stringify(legacy));
      const modern = { jsonrpc: '2.0' as const, id: `m-${call}`, result: completeResult('tools/list', page, cache) };
      expect(responseJson(modern)).toBe(JSON.stringify(modern));
    }
  });

  it('go out as their kept UTF-8 bytes between a response\'s head and tail, on both eras\' paths, byte for byte JSON.stringify\'s', () => {
    const pages = new ViewPages();
    // Pages of ~18 KB: bytes above 4 KB have memory of their own, not a slice of Buffer's shared pool.
    const entries = tools(200);
    const cache = () => ({ listsFreshForMs: 1000, privateViews: true });
    const pageMemory = new Set<ArrayBufferLike>();
    for (const cursor of [undefined, cursorFor(100)]) {
      for (let call = 0; call < 3; call++) {
        const page = pages.page('tools', entries, cursor, 100);
        const legacy = { jsonrpc: '2.0' as const, id: `l-\u00e9-${call}`, result: page };
        const legacyBody = responseBody(legacy);
        expect(Array.isArray(legacyBody)).toBe(true);
        expect(written(legacyBody)).toBe(JSON.stringify(legacy));
        const modern = { jsonrpc: '2.0' as const, id: call, result: completeResult('tools/list', page, cache) };
        const modernBody = responseBody(modern);
        expect(written(modernBody)).toBe(JSON.stringify(modern));
        // The page's bytes, not a copy: the same memory in every answer of both eras.
        for (const piece of [...legacyBody, ...modernBody]) if (typeof piece !== 'string') pageMemory.add(piece.buffer);
      }
    }
    // Two pages, each one piece of memory under its whole bytes and under the 2026 view of them.
    expect(pageMemory.size).toBe(2);
  });

  it('are the same objects for every caller of the view, and new ones for a new view', () => {
    const pages = new ViewPages();
    const entries = tools(25);
    const first = pages.page('tools', entries, undefined, 10);
    expect(pages.page('tools', entries, undefined, 10)).toBe(first);
    expect(pages.page('tools', entries, cursorFor(10), 10)).toBe(pages.page('tools', entries, cursorFor(10), 10));
    expect(pages.page('tools', [...entries], undefined, 10)).not.toBe(first);
    // Another page size (another gateway in the same process) is another page.
    expect(pages.page('tools', entries, undefined, 5).tools).toHaveLength(5);
  });

  it('keep only the pages the gateway\'s own cursors name', () => {
    const pages = new ViewPages();
    const entries = tools(25);
    const madeUp = pages.page('tools', entries, cursorFor(3), 10);
    expect((madeUp.tools as { name: string }[])[0]!.name).toBe('server__tool_3');
    expect(pages.page('tools', entries, cursorFor(3), 10)).not.toBe(madeUp);
  });

  it('cannot be changed, so their text cannot go stale', () => {
    const page = new ViewPages().page('tools', tools(3), undefined, 10);
    expect(() => {
      (page as Record<string, unknown>).nextCursor = 'x';
    }).toThrow(TypeError);
    expect(() => (page.tools as unknown[]).push({})).toThrow(TypeError);
  });

  it('keep their text through the 2026 shaping, with the hints and the server\'s identity added', () => {
    const page = new ViewPages().page('tools', tools(12), undefined, 10);
    const shaped = completeResult('tools/list', page, () => ({ listsFreshForMs: 60_000, privateViews: true }));
    expect(presetTextOf(shaped)).toBe(JSON.stringify(shaped));
    expect(shaped).toMatchObject({ resultType: 'complete', ttlMs: 60_000, cacheScope: 'private', nextCursor: expect.any(String) });
    expect(responseJson({ jsonrpc: '2.0', id: 7, result: shaped })).toBe(JSON.stringify({ jsonrpc: '2.0', id: 7, result: shaped }));
  });
});

describe('preset JSON texts', () => {
  it('leave a copy without one when the source has none, or when the additions overlap its keys', () => {
    const plain = { a: 1 };
    expect(presetTextOf(presetJsonWith({ ...plain, b: 2 }, plain, { b: 2 }))).toBeUndefined();
    const preset = presetJson({ a: 1, _meta: { x: 1 } }, () => '{"a":1,"_meta":{"x":1}}');
    const overlapping = presetJsonWith({ a: 1, _meta: { y: 2 } }, preset, { _meta: { y: 2 } });
    expect(presetTextOf(overlapping)).toBeUndefined();
    expect(Object.isFrozen(overlapping)).toBe(false);
  });

  it('are written once, on first use, however often they are asked for as text or as bytes', () => {
    let writes = 0;
    const value = presetJson({ a: 'd\u00e9j\u00e0' }, () => {
      writes += 1;
      return '{"a":"d\u00e9j\u00e0"}';
    });
    expect(writes).toBe(0);
    for (let call = 0; call < 3; call++) {
      expect(presetTextOf(value)).toBe(JSON.stringify(value));
      expect(written(responseBody({ jsonrpc: '2.0', id: call, result: value }))).toBe(JSON.stringify({ jsonrpc: '2.0', id: call, result: value }));
    }
    expect(writes).toBe(1);
  });

  it('write an empty source with the additions only', () => {
    const empty = presetJson({}, () => '{}');
    const copy = presetJsonWith({ resultType: 'complete' }, empty, { resultType: 'complete' });
    expect(presetTextOf(copy)).toBe('{"resultType":"complete"}');
    expect(written(responseBody({ jsonrpc: '2.0', id: 1, result: copy }))).toBe('{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}');
  });

  it('add to a copy of a copy, in text and in pieces', () => {
    const source = presetJson({ a: 'd\u00e9j\u00e0' }, () => '{"a":"d\u00e9j\u00e0"}');
    const once = presetJsonWith({ ...source, b: 1 }, source, { b: 1 });
    const twice = presetJsonWith({ ...once, c: [2] }, once, { c: [2] });
    const response = { jsonrpc: '2.0' as const, id: 'x', result: twice };
    expect(presetTextOf(twice)).toBe(JSON.stringify(twice));
    expect(written(responseBody(response))).toBe(JSON.stringify(response));
    const emptyOnce = presetJsonWith({ b: 1 }, presetJson({}, () => '{}'), { b: 1 });
    const emptyTwice = presetJsonWith({ b: 1, c: 2 }, emptyOnce, { c: 2 });
    expect(written(responseBody({ jsonrpc: '2.0', id: 2, result: emptyTwice }))).toBe('{"jsonrpc":"2.0","id":2,"result":{"b":1,"c":2}}');
  });

  it('are ignored for error responses, which are serialized as they are', () => {
    const response = { jsonrpc: '2.0' as const, id: null, error: { code: -32602, message: 'Invalid cursor' } };
    expect(responseJson(response)).toBe(JSON.stringify(response));
    expect(responseBody(response)).toBe(JSON.stringify(response));
  });
});
