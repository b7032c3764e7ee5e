// lists.pageSize and namespace.maxNameLength: their defaults (one page; names of at most 48), what
// the loader accepts (numbers from ${VAR} text too), and the values it refuses, at their key paths.
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { problemAt, problemsOf } from './config-test-helpers.js';

const parse = (text: string, env: NodeJS.ProcessEnv = {}) => parseConfigText(text, 'yaml', env);

describe('lists and name length in the config', () => {
  it('default to one page per list and names of at most 48 characters', () => {
    const config = parse('mcpServers: {}\n');
    expect(config.lists.pageSize).toBeUndefined();
    expect(config.namespace).toEqual({ separator: '__', maxNameLength: 48 });
  });

  it('take a page size and a maximum, also from the environment', () => {
    const config = parse('lists: { pageSize: "${PAGE}" }\nnamespace: { maxNameLength: 64 }\n', { PAGE: '100' });
    expect(config.lists.pageSize).toBe(100);
    expect(config.namespace.maxNameLength).toBe(64);
  });

  it('refuses a page size below 1 and a maximum outside 24 to 64, and unknown keys', () => {
    const problems = problemsOf('lists: { pageSize: 0, size: 5 }\nnamespace: { maxNameLength: 16 }\n');
    expect(problemAt(problems, 'lists.pageSize')).toMatch(/>=?\s*1|at least 1|too small/i);
    expect(problemAt(problems, 'lists.size')).toBe('unknown key');
    expect(problemAt(problems, 'namespace.maxNameLength')).toMatch(/24/);
    expect(problemAt(problemsOf('namespace: { maxNameLength: 65 }\n'), 'namespace.maxNameLength')).toMatch(/64/);
  });
});
