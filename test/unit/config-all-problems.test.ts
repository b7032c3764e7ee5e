import { describe, expect, it } from 'vitest';
import { problemsOf } from './config-test-helpers.js';

describe('a config with field-level and cross-key problems', () => {
  it('reports both kinds in one run, each at its key path', () => {
    const found = problemsOf(
      JSON.stringify({
        server: { port: 99999 },
        mcpServers: {
          a: { command: 'a', timeoutMs: 'soon', tools: { x: { name: 'shared' } } },
          b: { url: 'ftp://b', tools: { y: { name: 'shared' } } },
        },
        endpoints: { one: { path: '/team', include: ['nobody/*'] }, two: { path: '/team', discovery: 'maybe' } },
        limits: { servers: { c: { requestsPerMinute: 0 } } },
      }),
      { format: 'json' },
    );
    expect(found.map((problem) => problem.path)).toEqual([
      'server.port',
      'mcpServers.a.timeoutMs',
      'mcpServers.b.url',
      'endpoints.two.discovery',
      'limits.servers.c.requestsPerMinute',
      'mcpServers.b.tools.y.name',
      'limits.servers.c',
      'endpoints.one.include[0]',
      'endpoints.two.path',
    ]);
  });

  it('skips a cross-key check whose keys did not parse rather than guess', () => {
    const found = problemsOf(JSON.stringify({ namespace: { separator: '' }, mcpServers: { a: { command: 'a', tools: { x: { name: 'a__y' } } }, b: { command: 'b', prefix: 'a' } } }), {
      format: 'json',
    });
    expect(found.map((problem) => problem.path)).toEqual(['namespace.separator', 'mcpServers.b.prefix']);
  });
});
