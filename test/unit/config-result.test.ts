import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { problemAt, problemsOf } from './config-test-helpers.js';

describe('the loaded config', () => {
  it('is frozen all the way down', () => {
    const config = parseConfigText('mcpServers:\n  a: {command: x, args: [y]}\n', 'yaml', {});
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.server)).toBe(true);
    expect(Object.isFrozen(config.mcpServers.a)).toBe(true);
    expect(() => {
      (config.server as { port: number }).port = 1;
    }).toThrow(TypeError);
  });

  it('rejects two servers that expose the same prefix, naming both', () => {
    const message = problemAt(problemsOf('mcpServers:\n  alpha: {command: a}\n  beta: {command: b, prefix: alpha}\n'), 'mcpServers.beta.prefix');
    expect(message).toMatch(/"alpha" and "beta" both expose the prefix "alpha"/);
  });

  it('allows several servers with the empty prefix', () => {
    const config = parseConfigText('mcpServers:\n  a: {command: a, prefix: ""}\n  b: {command: b, prefix: ""}\n', 'yaml', {});
    expect(Object.keys(config.mcpServers)).toEqual(['a', 'b']);
  });

  it('allows a disabled server to share a prefix', () => {
    const config = parseConfigText('mcpServers:\n  a: {command: a}\n  b: {command: b, prefix: a, enabled: false}\n', 'yaml', {});
    expect(config.mcpServers.b?.enabled).toBe(false);
  });

  it('fills in the defaults of every server', () => {
    const config = parseConfigText('mcpServers:\n  a: {command: a}\n  b: {url: "https://b.example/mcp"}\n', 'yaml', {});
    expect(config.mcpServers.a).toEqual({ command: 'a', args: [], env: {}, timeoutMs: 60_000, isolation: 'shared', maxSessions: 1000, listConnectTimeoutMs: 5_000, enabled: true });
    expect(config.mcpServers.b).toEqual({
      url: 'https://b.example/mcp',
      headers: {},
      transport: 'auto',
      timeoutMs: 60_000,
      isolation: 'shared',
      maxSessions: 1000,
      listConnectTimeoutMs: 5_000,
      enabled: true,
    });
  });
});
