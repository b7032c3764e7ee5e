import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { problemAt, problemsOf } from './config-test-helpers.js';

const serverFrom = (entry: object) =>
  parseConfigText(JSON.stringify({ mcpServers: { remote: entry } }), 'json', {}).mcpServers.remote;

describe('aliases from other MCP clients', () => {
  it('maps type "http" to the streamable-http transport', () => {
    expect(serverFrom({ type: 'http', url: 'https://a.example/mcp' })).toMatchObject({ transport: 'streamable-http' });
  });

  it('maps type "streamable-http" to the streamable-http transport', () => {
    expect(serverFrom({ type: 'streamable-http', url: 'https://a.example/mcp' })).toMatchObject({ transport: 'streamable-http' });
  });

  it('maps type "sse" to the sse transport', () => {
    expect(serverFrom({ type: 'sse', url: 'https://a.example/sse' })).toMatchObject({ transport: 'sse' });
  });

  it('accepts type "stdio" on a server with a command', () => {
    expect(serverFrom({ type: 'stdio', command: 'npx' })).toMatchObject({ command: 'npx' });
    expect(serverFrom({ type: 'stdio', command: 'npx' })).not.toHaveProperty('type');
  });

  it('rejects type "stdio" on a server without a command, once', () => {
    const problems = problemsOf(JSON.stringify({ mcpServers: { remote: { type: 'stdio', url: 'https://a.example/mcp' } } }), {
      format: 'json',
    });
    expect(problems).toEqual([{ path: 'mcpServers.remote.type', message: 'type "stdio" needs "command" (and no "url")' }]);
  });

  it('rejects type "http" on a server without a url', () => {
    const problems = problemsOf(JSON.stringify({ mcpServers: { local: { type: 'http', command: 'npx' } } }), { format: 'json' });
    expect(problemAt(problems, 'mcpServers.local.type')).toBe('type "http" needs "url" (and no "command")');
  });

  it('rejects an unknown type', () => {
    const problems = problemsOf('mcpServers:\n  a: {type: websocket, url: "wss://a.example"}\n');
    expect(problemAt(problems, 'mcpServers.a.type')).toMatch(/must be one of/);
  });

  it('rejects a type that contradicts an explicit transport', () => {
    const problems = problemsOf('mcpServers:\n  a: {type: sse, url: "https://a.example", transport: streamable-http}\n');
    expect(problemAt(problems, 'mcpServers.a.transport')).toMatch(/conflicts with type "sse"/);
  });

  it('reads disabled: true as enabled: false', () => {
    expect(serverFrom({ command: 'npx', disabled: true })).toMatchObject({ enabled: false });
  });

  it('reads disabled: false as enabled: true', () => {
    expect(serverFrom({ command: 'npx', disabled: false })).toMatchObject({ enabled: true });
  });

  it('rejects disabled together with an enabled that says the opposite', () => {
    const problems = problemsOf('mcpServers:\n  a: {command: x, disabled: true, enabled: true}\n');
    expect(problemAt(problems, 'mcpServers.a.disabled')).toMatch(/contradicts "enabled"/);
  });

  it('rejects a disabled that is not a boolean', () => {
    const problems = problemsOf('mcpServers:\n  a: {command: x, disabled: sometimes}\n');
    expect(problemAt(problems, 'mcpServers.a.disabled')).toBe('expected boolean');
  });
});
