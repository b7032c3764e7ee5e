// The Origin and Host checks through a small app, as a browser (or a rebinding page) would hit them.
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from '../../src/http/app-env.js';
import { originGuard, type OriginGuardOptions } from '../../src/http/middleware/origin-guard.js';
import { compileOriginPattern } from '../../src/http/origin-patterns.js';

function appWith(options: OriginGuardOptions = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('/mcp', originGuard(options));
  app.all('/mcp', (c) => c.text('served'));
  return app;
}

async function status(app: Hono<AppEnv>, headers: Record<string, string>, method = 'POST'): Promise<number> {
  return (await app.request('/mcp', { method, headers })).status;
}

describe('the Origin check', () => {
  it('lets a request without Origin through', async () => {
    expect(await status(appWith({ allowedOrigins: ['https://app.example.com'] }), {})).toBe(200);
  });

  it('allows only loopback origins when allowedOrigins is unset', async () => {
    const app = appWith();
    expect(await status(app, { origin: 'http://localhost:5173' })).toBe(200);
    expect(await status(app, { origin: 'http://127.0.0.1:8080' })).toBe(200);
    expect(await status(app, { origin: 'http://[::1]:3000' })).toBe(200);
    expect(await status(app, { origin: 'https://evil.example' })).toBe(403);
    expect(await status(app, { origin: 'null' })).toBe(403);
  });

  it('matches listed origins exactly, with a wildcard port for localhost', async () => {
    const app = appWith({ allowedOrigins: ['https://app.example.com', 'http://localhost:*'] });
    expect(await status(app, { origin: 'https://app.example.com' })).toBe(200);
    expect(await status(app, { origin: 'https://app.example.com:443' })).toBe(200);
    expect(await status(app, { origin: 'http://localhost:61234' })).toBe(200);
    expect(await status(app, { origin: 'http://app.example.com' })).toBe(403);
    expect(await status(app, { origin: 'https://app.example.com.evil.example' })).toBe(403);
    expect(await status(app, { origin: 'https://app.example.com:8443' })).toBe(403);
    expect(await status(app, { origin: 'http://127.0.0.1:3000' })).toBe(403);
  });

  it('answers an allowed preflight with the MCP headers and a refused one with 403', async () => {
    const app = appWith({ allowedOrigins: ['https://app.example.com'] });
    const preflight = await app.request('/mcp', {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Mcp-Session-Id/);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    expect(await status(app, { origin: 'https://evil.example', 'access-control-request-method': 'POST' }, 'OPTIONS')).toBe(403);
  });

  it("allows in a preflight the headers a 2026-07-28 client mirrors, the Mcp-Param-* ones as it asks for them, and nothing else it asks for", async () => {
    const preflight = await appWith({ allowedOrigins: ['https://app.example.com'] }).request('/mcp', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,mcp-method,mcp-name,mcp-param-region,mcp-param-tenant_id,x-other,mcp-param-',
      },
    });
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').split(',').map((name) => name.trim().toLowerCase());
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'mcp-param-region', 'mcp-param-tenant_id']));
    expect(allowed).not.toContain('x-other');
    expect(allowed).not.toContain('mcp-param-');
    expect(preflight.headers.get('vary')).toMatch(/Access-Control-Request-Headers/);
  });

  it('exposes the session id and the challenge to an allowed origin', async () => {
    const response = await appWith({ allowedOrigins: ['https://app.example.com'] }).request('/mcp', {
      method: 'POST',
      headers: { origin: 'https://app.example.com' },
    });
    expect(response.headers.get('access-control-expose-headers')).toMatch(/Mcp-Session-Id.*WWW-Authenticate/);
  });

  it('understands subdomain wildcards and "*"', () => {
    const sub = compileOriginPattern('https://*.example.com');
    expect(sub('https://a.b.example.com')).toBe(true);
    expect(sub('https://example.com')).toBe(false);
    expect(sub('https://badexample.com')).toBe(false);
    expect(compileOriginPattern('*')('https://anything.example')).toBe(true);
    expect(() => compileOriginPattern('app.example.com')).toThrow(/not an origin/);
  });
});

describe('the Host check of a loopback bind', () => {
  const app = appWith({ allowedHosts: ['mcp.example.com'] });

  it('lets loopback names and the public host through', async () => {
    expect(await status(app, { host: '127.0.0.1:8080' })).toBe(200);
    expect(await status(app, { host: 'localhost' })).toBe(200);
    expect(await status(app, { host: '[::1]:8080' })).toBe(200);
    expect(await status(app, { host: 'MCP.example.com' })).toBe(200);
  });

  it('refuses any other Host, as a DNS-rebinding page would send', async () => {
    expect(await status(app, { host: 'rebind.attacker.example:8080' })).toBe(403);
  });

  it('judges each new Host, whatever passed before it', async () => {
    for (let round = 0; round < 2; round++) {
      expect(await status(app, { host: '127.0.0.1:8080' })).toBe(200);
      expect(await status(app, { host: 'rebind.attacker.example:8080' })).toBe(403);
      expect(await status(app, { host: 'rebind.attacker.example:8080' })).toBe(403);
    }
  });
});
