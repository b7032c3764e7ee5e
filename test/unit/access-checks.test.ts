// The access checks both ways in run (the Hono app and the POST fast path): their order, through a
// small Hono app with real checks and a token verifier that knows one token.
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { TokenRejectedError, type TokenVerifier } from '../../src/auth/token-verifier.js';
import { MemoryRateLimiter } from '../../src/limits/memory-limiter.js';
import type { AppEnv } from '../../src/http/app-env.js';
import { accessChecks, type AccessChecks } from '../../src/http/middleware/access-checks.js';
import { bearerAuth } from '../../src/http/middleware/bearer-auth.js';
import { originCheck } from '../../src/http/middleware/origin-guard.js';
import { rateLimitCheck } from '../../src/http/middleware/rate-limit.js';

const ORIGIN = 'https://app.example.com';

const verifier: TokenVerifier = {
  verify: async (token) => {
    if (token !== 'good') throw new TokenRejectedError('unknown token');
    return { sub: 'alice', scopes: [], claims: {} };
  },
};

function appWith(checks: Partial<AccessChecks> = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(
    '/mcp',
    accessChecks({
      origin: originCheck({ allowedOrigins: [ORIGIN] }),
      auth: bearerAuth({ verifier, resourceMetadata: 'https://gateway.example/.well-known/oauth-protected-resource' }),
      maxBodyBytes: 100,
      ...checks,
    }),
  );
  app.all('/mcp', (c) => c.text(`served ${c.get('principal')?.sub ?? 'nobody'}`));
  return app;
}

describe('the access checks', () => {
  it('answer a CORS preflight before asking for a token', async () => {
    const response = await appWith().request('/mcp', { method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': 'POST' } });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN);
  });

  it('refuse a request without a token with 401 that an allowed browser origin can read', async () => {
    const response = await appWith().request('/mcp', { method: 'POST', headers: { origin: ORIGIN } });
    expect(response.status).toBe(401);
    expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(response.headers.get('www-authenticate')).toContain('Bearer');
  });

  it('count a request with a bad token against the rate limit before refusing it', async () => {
    const app = appWith({ rateLimit: rateLimitCheck({ limiter: new MemoryRateLimiter({ limit: 1 }) }) });
    const bad = { method: 'POST', headers: { authorization: 'Bearer bad' } };
    expect((await app.request('/mcp', bad)).status).toBe(401);
    expect((await app.request('/mcp', bad)).status).toBe(429);
  });

  it('refuse a declared body over the limit only once the token passed', async () => {
    const app = appWith();
    expect((await app.request('/mcp', { method: 'POST', headers: { 'content-length': '101' } })).status).toBe(401);
    expect((await app.request('/mcp', { method: 'POST', headers: { authorization: 'Bearer good', 'content-length': '101' } })).status).toBe(413);
  });

  it('hand the route the principal of an accepted token', async () => {
    const response = await appWith().request('/mcp', { method: 'POST', headers: { authorization: 'Bearer good' } });
    expect(await response.text()).toBe('served alice');
  });
});
