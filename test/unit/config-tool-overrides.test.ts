// mcpServers.<name>.tools: the shape of an override, and the renames the config refuses because
// they would collide, each reported at the rename's key path and naming the other tool.
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { problemAt, problemsOf } from './config-test-helpers.js';

const parse = (text: string) => parseConfigText(text, 'yaml', {});

describe('tool overrides in the config', () => {
  it('accepts a rename, a title, a description, annotations and hidden, with string booleans', () => {
    const config = parse(`
mcpServers:
  everything:
    command: x
    tools:
      echo: { name: say, title: Say, description: Says it back, annotations: { readOnlyHint: "true", title: Say it } }
      get-env: { hidden: true }
      "files.read": {}
`);
    expect(config.mcpServers.everything?.tools).toEqual({
      echo: { name: 'say', title: 'Say', description: 'Says it back', annotations: { readOnlyHint: true, title: 'Say it' } },
      'get-env': { hidden: true },
      'files.read': {},
    });
  });

  it('leaves tools out of a server that has none', () => {
    expect(parse('mcpServers:\n  a: {command: a}\n').mcpServers.a).not.toHaveProperty('tools');
  });

  it('refuses a rename that is no LLM-safe function name', () => {
    const problems = problemsOf('mcpServers:\n  a:\n    command: a\n    tools:\n      echo: { name: "say it" }\n');
    expect(problemAt(problems, 'mcpServers.a.tools.echo.name')).toMatch(/1 to 64 of A-Z a-z 0-9 _ -/);
  });

  it('refuses unknown keys in an override and in its annotations', () => {
    const problems = problemsOf('mcpServers:\n  a:\n    command: a\n    tools:\n      echo: { rename: x, annotations: { dangerous: true } }\n');
    expect(problemAt(problems, 'mcpServers.a.tools.echo.rename')).toBe('unknown key');
    expect(problemAt(problems, 'mcpServers.a.tools.echo.annotations.dangerous')).toBe('unknown key');
  });

  it('refuses two renames to one name across servers, at the second, naming both', () => {
    const problems = problemsOf(`
mcpServers:
  alpha: { command: a, tools: { search: { name: find } } }
  beta: { command: b, tools: { lookup: { name: find } } }
`);
    expect(problems).toHaveLength(1);
    expect(problemAt(problems, 'mcpServers.beta.tools.lookup.name')).toMatch(/"alpha\/search" and "beta\/lookup" are both renamed to "find"/);
  });

  it('refuses two renames to one name within a server', () => {
    const problems = problemsOf('mcpServers:\n  a: { command: a, tools: { x: { name: same }, y: { name: same } } }\n');
    expect(problemAt(problems, 'mcpServers.a.tools.y.name')).toMatch(/"a\/x" and "a\/y" are both renamed to "same"/);
  });

  it('refuses a rename to the exposed name of a tool that another override names', () => {
    const problems = problemsOf(`
mcpServers:
  alpha: { command: a, prefix: "", tools: { search: { description: Searches } } }
  beta: { command: b, tools: { lookup: { name: search } } }
`);
    expect(problemAt(problems, 'mcpServers.beta.tools.lookup.name')).toMatch(/"search" is the exposed name of "alpha\/search"/);
  });

  it('refuses a rename into another server\'s prefix, where it could take the name of a tool that server lists', () => {
    const problems = problemsOf('mcpServers:\n  web: { command: w }\n  docs: { command: d, tools: { fetch: { name: web__fetch } } }\n');
    expect(problemAt(problems, 'mcpServers.docs.tools.fetch.name')).toMatch(/starts with "web__", the names of server "web"/);
  });

  it('takes a server\'s default prefix to be its slug', () => {
    const problems = problemsOf('mcpServers:\n  "My Web": { command: w }\n  docs: { command: d, tools: { fetch: { name: my-web__fetch } } }\n');
    expect(problemAt(problems, 'mcpServers.docs.tools.fetch.name')).toMatch(/starts with "my-web__", the names of server "My Web"/);
  });

  it('reports the key path of a tool name that needs quoting', () => {
    const problems = problemsOf('mcpServers:\n  a: { command: a, tools: { "files.read": { name: b__x } } }\n  b: { command: b }\n');
    expect(problemAt(problems, 'mcpServers.a.tools["files.read"].name')).toMatch(/server "b"/);
  });

  it('allows renames within the own prefix, to the own natural name, swaps, and names of hidden or disabled tools', () => {
    const config = parse(`
mcpServers:
  a:
    command: a
    tools:
      x: { name: a__y }
      y: { name: a__x }
      z: { name: a__z }
      old: { name: shared, hidden: true }
  b: { command: b, tools: { other: { name: shared } } }
  c: { command: c, enabled: false, tools: { more: { name: shared } } }
`);
    expect(config.mcpServers.b?.tools?.other?.name).toBe('shared');
  });

  it('uses the separator and the prefix that are configured', () => {
    const problems = problemsOf(`
namespace: { separator: "-" }
mcpServers:
  web: { command: w, prefix: www }
  docs: { command: d, tools: { fetch: { name: www-fetch } } }
`);
    expect(problemAt(problems, 'mcpServers.docs.tools.fetch.name')).toMatch(/starts with "www-", the names of server "web"/);
  });
});
