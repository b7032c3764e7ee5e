import { describe, expect, it } from 'vitest';
import { summariseConfig } from '../../src/cli/summary.js';
import { parseConfigText } from '../../src/config/load.js';
import { problemAt, problemsOf } from './config-test-helpers.js';

const claudeDesktopConfig = JSON.stringify({
  mcpServers: {
    GitHub: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'x' } },
    brave_search: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-brave-search'] },
    'My Notes': { command: 'node', args: ['notes.js'] },
    '📝': { url: 'https://notes.example/mcp' },
  },
});

describe('server names in the config', () => {
  it('accept a Claude Desktop file as it is, keeping the names as written', () => {
    const config = parseConfigText(claudeDesktopConfig, 'json', {});
    expect(Object.keys(config.mcpServers)).toEqual(['GitHub', 'brave_search', 'My Notes', '📝']);
  });

  it('refuse an empty name', () => {
    expect(problemAt(problemsOf('mcpServers:\n  "": {command: a}\n'), 'mcpServers[""]')).toBe('a server name must not be empty');
  });

  it('refuse a name longer than 128 characters', () => {
    const name = 'n'.repeat(129);
    expect(problemAt(problemsOf(`mcpServers:\n  ${name}: {command: a}\n`), `mcpServers.${name}`)).toBe('a server name is at most 128 characters');
  });

  it('accept a name of 128 characters, counted as characters rather than UTF-16 units', () => {
    const config = parseConfigText(JSON.stringify({ mcpServers: { ['📝'.repeat(128)]: { command: 'a' } } }), 'json', {});
    expect(Object.keys(config.mcpServers)).toHaveLength(1);
  });

  it('refuse "__proto__" by name rather than dropping the server', () => {
    expect(problemAt(problemsOf('{"mcpServers": {"__proto__": {"command": "a"}}}', { format: 'json' }), 'mcpServers.__proto__')).toMatch(
      /cannot be named "__proto__"/,
    );
  });

  it('accept names of Object.prototype members', () => {
    const config = parseConfigText('mcpServers:\n  constructor: {command: a}\n  toString: {command: b}\n', 'yaml', {});
    expect(Object.keys(config.mcpServers)).toEqual(['constructor', 'toString']);
  });

  it('refuse two enabled servers whose names normalize to the same slug, naming both at the second key path', () => {
    const problems = problemsOf('mcpServers:\n  GitHub: {command: a}\n  github: {command: b}\n');
    expect(problems).toHaveLength(1);
    expect(problemAt(problems, 'mcpServers.github')).toMatch(/^servers "GitHub" and "github" both normalize to "github"/);
  });

  it('name a colliding key that is not a plain identifier in brackets', () => {
    const problems = problemsOf('mcpServers:\n  my_notes: {command: a}\n  My Notes: {command: b}\n');
    expect(problemAt(problems, 'mcpServers["My Notes"]')).toMatch(/^servers "my_notes" and "My Notes" both normalize to "my-notes"/);
  });

  it('refuse a slug collision even when explicit prefixes differ (the slug also names the server in URIs, metrics and policy)', () => {
    const problems = problemsOf('mcpServers:\n  a.b: {command: a, prefix: ab}\n  A B: {command: b, prefix: cd}\n');
    expect(problemAt(problems, 'mcpServers["A B"]')).toMatch(/both normalize to "a-b"/);
  });

  it('report every collision of a group of names against the first of them', () => {
    const problems = problemsOf('mcpServers:\n  My Notes: {command: a}\n  my_notes: {command: b}\n  my.notes: {command: c}\n');
    expect(problems.map((problem) => problem.path)).toEqual(['mcpServers.my_notes', 'mcpServers["my.notes"]']);
    expect(problems.every((problem) => problem.message.startsWith('servers "My Notes" and '))).toBe(true);
  });

  it('let a disabled server share a slug', () => {
    const config = parseConfigText('mcpServers:\n  GitHub: {command: a}\n  github: {command: b, enabled: false}\n', 'yaml', {});
    expect(Object.keys(config.mcpServers)).toEqual(['GitHub', 'github']);
  });

  it('refuse a slug that collides with another server\'s explicit prefix', () => {
    const problems = problemsOf('mcpServers:\n  notes: {command: a, prefix: my-notes}\n  My Notes: {command: b}\n');
    expect(problemAt(problems, 'mcpServers["My Notes"].prefix')).toMatch(/"notes" and "My Notes" both expose the prefix "my-notes"/);
  });

  it('let an explicit prefix stand in for the slug as the tool prefix', () => {
    const config = parseConfigText('mcpServers:\n  notes: {command: a}\n  My Notes: {command: b, prefix: notes2}\n', 'yaml', {});
    expect(config.mcpServers['My Notes']?.prefix).toBe('notes2');
  });
});

describe('the summary `switchboard validate` prints', () => {
  it('shows a name that is not its own slug quoted, with the slug that prefixes, URIs, metrics and policy use', () => {
    const config = parseConfigText('mcpServers:\n  GitHub: {command: a}\n  everything: {command: b}\n  "Notes, work": {command: c, enabled: false}\n', 'yaml', {});
    expect(summariseConfig(config)).toMatch(/^3 servers: "GitHub" \(github\) \[stdio\], everything \[stdio\], "Notes, work" \(notes-work\) \[stdio, disabled\];/);
  });
});
