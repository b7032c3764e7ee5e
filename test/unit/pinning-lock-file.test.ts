import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { lockFromLists, parseLockFile, renderLockFile } from '../../src/pinning/lock-file.js';

const ECHO = { name: 'echo', description: 'Echoes the message', inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } };
const LONG = {
  name: 'long',
  title: 'Long: one',
  description: 'First line\nSecond line, with a trailing space \n\n  indented\n# not a comment',
  inputSchema: JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"},"a.b":{},"123":{"enum":[1,"x",null,true]}}}'),
  outputSchema: { type: 'object' },
  annotations: { readOnlyHint: true },
};
const HIDDEN = { name: 'z\u200b', description: 'Looks harmless\u{E0049}\u{E0047}\u{E004E}', inputSchema: { type: 'object' } };

function problemsOf(text: string): string[] {
  try {
    parseLockFile(text);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map(({ path, message }) => `${path}: ${message}`);
    throw error;
  }
  return [];
}

describe('the lock file', () => {
  const lock = lockFromLists([
    ['My Notes', [LONG, ECHO, HIDDEN]],
    ['everything', []],
  ]);
  const text = renderLockFile(lock);

  it('reads back as the same pins, whatever the strings hold', () => {
    const back = parseLockFile(text);
    expect([...back.servers.keys()]).toEqual(['My Notes', 'everything']);
    for (const [server, pins] of lock.servers) {
      expect([...back.servers.get(server)!.entries()]).toEqual([...pins.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
    }
  });

  it('is the same text for the same tools in another order', () => {
    expect(renderLockFile(lockFromLists([['everything', []], ['My Notes', [HIDDEN, ECHO, LONG]]]))).toBe(text);
  });

  it('starts with a comment saying what it is, then the version', () => {
    expect(text).toMatch(/^# Pinned tool definitions, written by `switchboard lock`\./);
    expect(text).toContain('\nversion: 1\nservers:\n');
  });

  it('writes a multi-line description one line of text per line, never folded', () => {
    expect(text).toContain('        description: |-\n          First line\n          Second line, with a trailing space \n\n            indented\n          # not a comment\n');
    const wide = renderLockFile(lockFromLists([['s', [{ name: 'w', description: 'word '.repeat(60).trim() }]]]));
    expect(wide).toContain(`description: ${'word '.repeat(60).trim()}\n`);
  });

  it('spells out characters a reviewer cannot see as escapes', () => {
    expect(text).toContain('    "z\\u200B":\n');
    expect(text).toContain('description: "Looks harmless\\U000E0049\\U000E0047\\U000E004E"');
  });

  it('never writes an anchor or alias for a schema two tools share', () => {
    const schema = { type: 'object', properties: { q: { type: 'string' } } };
    const shared = renderLockFile(lockFromLists([['s', [{ name: 'a', inputSchema: schema }, { name: 'b', inputSchema: schema }]]]));
    expect(shared).not.toMatch(/[&*]a\d/);
  });

  it('keeps the first of two tools an upstream lists under one name', () => {
    const pins = lockFromLists([['s', [{ name: 'dup', description: 'first' }, { name: 'dup', description: 'second' }]]]).servers.get('s')!;
    expect(pins.get('dup')?.definition.description).toBe('first');
  });

  it('refuses a digest that does not match its definition, naming the key path', () => {
    const edited = text.replace('description: Echoes the message', 'description: Echoes the message, and more');
    expect(problemsOf(edited)).toEqual([
      'servers["My Notes"].echo.digest: does not match the definition (edited by hand?); run `switchboard lock` and review the diff',
    ]);
  });

  it('refuses another version, unknown keys, a definition named otherwise, and fields that are not pinned', () => {
    const problems = problemsOf(
      [
        'version: 2',
        'extra: 1',
        'servers:',
        '  s:',
        '    a:',
        '      digest: sha256:nothex',
        '      definition: { name: b, icons: [] }',
        '      note: x',
      ].join('\n'),
    );
    expect(problems).toEqual([
      'version: expected 1, the lock file version this gateway writes',
      'extra: unknown key',
      'servers.s.a.note: unknown key',
      'servers.s.a.digest: expected "sha256:" and 64 hex digits',
      'servers.s.a.definition.icons: not a pinned field (name, title, description, inputSchema, outputSchema, annotations)',
      'servers.s.a.definition.name: must be the tool\'s name, "a"',
    ]);
  });

  it('reports a YAML syntax error with its line', () => {
    expect(problemsOf('servers: [\n')[0]).toMatch(/^: YAML syntax error: .*line 2/);
  });

  it('reads a server with no tools written as null as no pins', () => {
    expect(parseLockFile('version: 1\nservers:\n  empty:\n').servers.get('empty')?.size).toBe(0);
  });
});
