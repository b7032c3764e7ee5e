import { describe, expect, it } from 'vitest';
import { summariseConfig } from '../../src/cli/summary.js';
import { parseConfigText } from '../../src/config/load.js';
import { problemAt, problemsOf } from './config-test-helpers.js';

const SERVERS = { everything: { command: 'a' }, 'My Notes': { command: 'b' } };

function withEndpoints(endpoints: unknown, server: Record<string, unknown> = {}): string {
  return JSON.stringify({ server, mcpServers: SERVERS, endpoints });
}

const problems = (endpoints: unknown, server?: Record<string, unknown>) => problemsOf(withEndpoints(endpoints, server), { format: 'json' });

describe('endpoints in the config', () => {
  it('accept endpoints with their own paths, defaulting the selectors to everything', () => {
    const config = parseConfigText(withEndpoints({ support: { path: '/mcp/support', exclude: ['my-notes/*'] }, ops: { path: '/ops' } }), 'json', {});
    expect(config.endpoints.support).toEqual({ path: '/mcp/support', include: ['*/*'], exclude: ['my-notes/*'], requiredScopes: [], discovery: 'list' });
    expect(Object.keys(config.endpoints)).toEqual(['support', 'ops']);
  });

  it('show in the summary that validate prints', () => {
    const config = parseConfigText(withEndpoints({ support: { path: '/mcp/support' }, all: { path: '/mcp/all', discovery: 'search' } }), 'json', {});
    expect(summariseConfig(config)).toContain('path /mcp; endpoints: support /mcp/support, all /mcp/all [search]; sessions');
  });

  it('default to none', () => {
    expect(parseConfigText(JSON.stringify({ mcpServers: SERVERS }), 'json', {}).endpoints).toEqual({});
  });

  it('refuse two endpoints on one path, naming the second', () => {
    expect(problemAt(problems({ a: { path: '/team' }, b: { path: '/team' } }), 'endpoints.b.path')).toMatch(/overlaps endpoint "a"/);
  });

  it('refuse a path with a trailing slash, naming the path to write', () => {
    expect(problemAt(problems({ a: { path: '/team/' } }), 'endpoints.a.path')).toBe('must not end with "/": write "/team"');
  });

  it('refuse an audience or required scopes without auth, which would check no token', () => {
    const found = problems({ a: { path: '/a', audience: 'api://a', requiredScopes: ['mcp:a'] }, b: { path: '/b', requiredScopes: [] } });
    expect(problemAt(found, 'endpoints.a.audience')).toMatch(/^needs auth/);
    expect(problemAt(found, 'endpoints.a.requiredScopes')).toMatch(/^needs auth/);
    expect(found.map((problem) => problem.path)).toEqual(['endpoints.a.audience', 'endpoints.a.requiredScopes']);
  });

  it('accept an audience and required scopes with auth', () => {
    const text = JSON.stringify({
      mcpServers: SERVERS,
      auth: { issuer: 'https://idp.example.com', jwksUri: 'https://idp.example.com/jwks' },
      endpoints: { a: { path: '/a', audience: 'api://a', requiredScopes: ['mcp:a'] } },
    });
    expect(parseConfigText(text, 'json', {}).endpoints.a).toMatchObject({ audience: 'api://a', requiredScopes: ['mcp:a'] });
  });

  it('refuse an endpoint on server.path, server.ssePath or its message path', () => {
    expect(problemAt(problems({ a: { path: '/mcp' } }), 'endpoints.a.path')).toMatch(/overlaps server\.path/);
    expect(problemAt(problems({ a: { path: '/events' } }, { ssePath: '/events' }), 'endpoints.a.path')).toMatch(/overlaps server\.ssePath/);
    expect(problemAt(problems({ a: { path: '/sse/message' } }), 'endpoints.a.path')).toMatch(/legacy SSE transport/);
  });

  it('allow the legacy transport path once it is turned off', () => {
    expect(parseConfigText(withEndpoints({ a: { path: '/sse' } }, { ssePath: '' }), 'json', {}).endpoints.a?.path).toBe('/sse');
  });

  it('refuse an endpoint on /healthz, /readyz, /metrics or under /.well-known/', () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      expect(problemAt(problems({ a: { path } }), 'endpoints.a.path')).toMatch(/overlaps/);
    }
    expect(problemAt(problems({ a: { path: '/.well-known/mcp' } }), 'endpoints.a.path')).toMatch(/\.well-known/);
  });

  it('refuse an endpoint on the path of server.publicUrl, whose metadata route it would share', () => {
    expect(problemAt(problems({ a: { path: '/gw/mcp' } }, { publicUrl: 'https://mcp.example.com/gw/mcp' }), 'endpoints.a.path')).toMatch(/server\.publicUrl/);
  });

  it('refuse a selector that names an unknown server, with the index of the pattern', () => {
    const found = problems({ a: { path: '/a', include: ['everything/*', 'evrything/echo'], exclude: ['nope-*/x'] } });
    expect(problemAt(found, 'endpoints.a.include[1]')).toMatch(/unknown server "evrything": mcpServers has "everything", "My Notes"/);
    expect(problemAt(found, 'endpoints.a.exclude[0]')).toMatch(/"nope-\*" matches no server/);
  });

  it('accept a selector that names a server by its name as written or by its slug', () => {
    const config = parseConfigText(withEndpoints({ a: { path: '/a', include: ['My Notes/*', 'my-notes/x', 'every*/echo'] } }), 'json', {});
    expect(config.endpoints.a?.include).toHaveLength(3);
  });

  it('refuse a selector that is not {server}/{name}', () => {
    expect(problemAt(problems({ a: { path: '/a', include: ['everything'] } }), 'endpoints.a.include[0]')).toMatch(/must be \{server\}\/\{name\}/);
  });

  it('refuse a name that is not a label value, and the name "default"', () => {
    expect(problemAt(problems({ 'two words': { path: '/a' } }), 'endpoints["two words"]')).toMatch(/1 to 64 of/);
    expect(problemAt(problems({ default: { path: '/a' } }), 'endpoints.default')).toMatch(/names server\.path's endpoint/);
  });

  it('are checked beside other problems, such as a port out of range', () => {
    const found = problems({ a: { path: '/mcp' } }, { port: 99999 });
    expect(problemAt(found, 'server.port')).toMatch(/65535/);
    expect(problemAt(found, 'endpoints.a.path')).toMatch(/overlaps server\.path/);
  });

  it('refuse a path without a leading slash, and unknown keys by their path', () => {
    expect(problemAt(problems({ a: { path: 'team' } }), 'endpoints.a.path')).toMatch(/must start with "\/"/);
    expect(problemsOf(withEndpoints({ a: { path: '/a', servers: [] } }), { format: 'json' }).map((problem) => problem.path)).toContain('endpoints.a.servers');
  });
});
