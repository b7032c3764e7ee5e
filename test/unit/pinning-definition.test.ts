import { describe, expect, it } from 'vitest';
import { canonicalJson, definitionDigest, liveDefinition, pinnedDefinition } from '../../src/pinning/definition.js';
import { hasHidden, showHidden, yamlEscaped } from '../../src/pinning/visible.js';

const TOOL = {
  name: 'search',
  title: 'Search',
  description: 'Finds documents',
  inputSchema: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer' } }, required: ['query'] },
  annotations: { readOnlyHint: true },
};

describe('canonical JSON (RFC 8785)', () => {
  it('sorts object keys by UTF-16 code units and leaves no whitespace', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 'x'], ä: {}, Z: 0.5 })).toBe('{"Z":0.5,"a":[true,null,"x"],"b":1,"ä":{}}');
  });

  it('writes numbers and strings as JSON.stringify does', () => {
    expect(canonicalJson([1e21, -0, 1.5, 'line\nbreak', '\u2028'])).toBe('[1e+21,0,1.5,"line\\nbreak","\u2028"]');
  });

  it('keeps a key named __proto__ as a key', () => {
    expect(canonicalJson(JSON.parse('{"__proto__":{"type":"string"}}'))).toBe('{"__proto__":{"type":"string"}}');
  });

  it('refuses what JSON cannot hold', () => {
    expect(() => canonicalJson(Number.NaN)).toThrow(TypeError);
    expect(() => canonicalJson(() => 1)).toThrow(TypeError);
  });
});

describe('the digest of a tool definition', () => {
  it('covers name, title, description, inputSchema, outputSchema and annotations, nothing else', () => {
    const definition = pinnedDefinition({ ...TOOL, icons: [{ src: 'https://example.com/i.png' }], _meta: { x: 1 }, execution: { taskSupport: 'optional' } });
    expect(Object.keys(definition)).toEqual(['name', 'title', 'description', 'inputSchema', 'annotations']);
    expect(definitionDigest(definition)).toBe(definitionDigest(pinnedDefinition(TOOL)));
  });

  it('is sha256: and 64 hex digits of the canonical JSON', () => {
    expect(definitionDigest(pinnedDefinition(TOOL))).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('does not change with the order an upstream sends keys in', () => {
    const reordered = JSON.parse(JSON.stringify({ annotations: TOOL.annotations, inputSchema: { required: ['query'], properties: { limit: { type: 'integer' }, query: { type: 'string' } }, type: 'object' }, description: TOOL.description, title: TOOL.title, name: TOOL.name }));
    expect(definitionDigest(pinnedDefinition(reordered))).toBe(definitionDigest(pinnedDefinition(TOOL)));
  });

  it('changes with any character of the description, and with the order of an array', () => {
    const base = definitionDigest(pinnedDefinition(TOOL));
    expect(definitionDigest(pinnedDefinition({ ...TOOL, description: 'Finds documents ' }))).not.toBe(base);
    expect(definitionDigest(pinnedDefinition({ ...TOOL, description: 'Finds\u200bdocuments' }))).not.toBe(base);
    const reorderedEnum = (values: string[]) => definitionDigest(pinnedDefinition({ ...TOOL, inputSchema: { type: 'object', properties: { q: { enum: values } } } }));
    expect(reorderedEnum(['a', 'b'])).not.toBe(reorderedEnum(['b', 'a']));
  });

  it('tells an absent title from an empty one', () => {
    const { title: _title, ...untitled } = TOOL;
    expect(definitionDigest(pinnedDefinition(untitled))).not.toBe(definitionDigest(pinnedDefinition({ ...untitled, title: '' })));
  });

  it('is computed once per tools/list entry', () => {
    const tool = { ...TOOL };
    expect(liveDefinition(tool)).toBe(liveDefinition(tool));
  });
});

describe('characters a reviewer cannot see', () => {
  it('finds zero-width, bidi, tag and variation-selector characters, and no ordinary text', () => {
    for (const hidden of ['\u200b', '\u202e', '\u{E0041}', '\ufe0f', '\u00a0', '\r']) expect(hasHidden(`a${hidden}b`)).toBe(true);
    expect(hasHidden('Plain text, with tabs\tand\nnew lines. Ümlauts, 東京 and emoji 📝 are visible.')).toBe(false);
  });

  it('spells them out for people and as YAML escapes', () => {
    expect(showHidden('a\u200bb\u{E0041}')).toBe('a<U+200B>b<U+E0041>');
    expect(yamlEscaped('say "hi"\\\n\u200b\u{E0041}')).toBe('"say \\"hi\\"\\\\\\n\\u200B\\U000E0041"');
  });
});
