import { describe, expect, it } from 'vitest';
import { exposeUri } from '../../src/gateway/catalogue/namespace.js';
import type { IsolatedServer } from '../../src/gateway/isolation/isolated-servers.js';
import { neededServers, type NamingRules } from '../../src/gateway/isolation/needed-servers.js';

const server = (name: string, prefix = name): IsolatedServer => ({ name, prefix, transport: 'http', maxSessions: 10, timeoutMs: 1_000, listConnectTimeoutMs: 500 });
const servers = [server('github'), server('notes')];
const rules: NamingRules = { separator: '__', toolsOf: (name) => (name === 'notes' ? new Map([['write', { name: 'jot' }]]) : undefined) };
const need = (method: string, params: Record<string, unknown>, among = servers, searchMode = false) => neededServers(method, params, among, rules, searchMode);

describe('the session-isolated servers a request needs', () => {
  it('every one for a list, none for ping, initialize, logging or discovery', () => {
    for (const method of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']) expect(need(method, {})).toBe('all');
    for (const method of ['ping', 'initialize', 'logging/setLevel', 'server/discover']) expect(need(method, {})).toEqual([]);
  });

  it('for a call or a get, only the servers whose names could be the one asked for', () => {
    expect(need('tools/call', { name: 'shared__echo' })).toEqual([]);
    expect(need('tools/call', { name: 'github__search' })).toEqual(['github']);
    expect(need('prompts/get', { name: 'notes__daily' })).toEqual(['notes']);
    // A tool override may name a tool without any prefix.
    expect(need('tools/call', { name: 'jot' })).toEqual(['notes']);
    expect(need('prompts/get', { name: 'jot' })).toEqual([]);
    // An unprefixed server may expose any name.
    expect(need('tools/call', { name: 'echo' }, [server('github'), server('plain', '')])).toEqual(['plain']);
    expect(need('tools/call', { name: 42 })).toEqual([]);
    // A name rewritten short enough (namespace.maxNameLength) to keep only part of the prefix.
    const long = server('a-very-long-per-user-server');
    expect(need('tools/call', { name: 'a-very-long-per_0123abcd' }, [long, server('notes')])).toEqual(['a-very-long-per-user-server']);
    expect(need('tools/call', { name: 'a-very-long-per-user-server__x_0123abcd' }, [long])).toEqual(['a-very-long-per-user-server']);
    expect(need('tools/call', { name: 'other_0123abcd' }, [long])).toEqual([]);
  });

  it("for a tool name no server's prefix, rename or shared tool accounts for, every one: it may be an upstream's own name", () => {
    const withShared: NamingRules = { ...rules, isSharedTool: (name) => name === 'shared__echo' || name === 'echo' };
    const call = (name: string, among = servers) => neededServers('tools/call', { name }, among, withShared, false);
    expect(call('search_issues')).toBe('all');
    expect(call('search_issues', [server('github'), server('plain', '')])).toBe('all');
    // Known names cost no more than before.
    expect(call('shared__echo')).toEqual([]);
    expect(call('echo', [server('github'), server('plain', '')])).toEqual(['plain']);
    expect(call('github__search')).toEqual(['github']);
    expect(call('jot')).toEqual(['notes']);
  });

  it('for a resource, the server its URI is tagged with, else the unprefixed ones', () => {
    expect(need('resources/read', { uri: exposeUri('github', 'repo://acme/x') })).toEqual(['github']);
    expect(need('resources/subscribe', { uri: exposeUri('elsewhere', 'file:///a') })).toEqual([]);
    expect(need('resources/read', { uri: 'file:///a' }, [server('github'), server('plain', '')])).toEqual(['plain']);
  });

  it('for a completion, what its ref names', () => {
    expect(need('completion/complete', { ref: { type: 'ref/prompt', name: 'github__review' } })).toEqual(['github']);
    expect(need('completion/complete', { ref: { type: 'ref/resource', uri: exposeUri('notes', 'note://{id}') } })).toEqual(['notes']);
  });

  it("in search mode, every one for find_tools (it searches all tools), and call_tool's own tool", () => {
    expect(need('tools/call', { name: 'find_tools', arguments: { query: 'x' } }, servers, true)).toBe('all');
    expect(need('tools/call', { name: 'github__search' }, servers, true)).toEqual(['github']);
  });
});
