// Secrets never reach a log line, whatever shape the logged object has: the real logger, writing
// to a stream the test reads.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observe/logger.js';
import { redactSecrets } from '../../src/observe/redact.js';

function capture(): { logger: ReturnType<typeof createLogger>; lines: () => Record<string, unknown>[]; text: () => string } {
  let text = '';
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      text += chunk.toString('utf8');
      callback();
    },
  });
  return {
    logger: createLogger({ level: 'debug', destination }),
    text: () => text,
    lines: () => text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('log redaction', () => {
  it('censors Authorization headers in any case and at any depth', () => {
    const { logger, text } = capture();
    logger.info({ headers: { Authorization: 'Bearer top-secret-1' } }, 'a');
    logger.info({ req: { headers: { authorization: 'Bearer top-secret-2', 'x-api-key': 'top-secret-3' } } }, 'b');
    logger.info({ Authorization: 'Bearer top-secret-4' }, 'c');
    expect(text()).not.toMatch(/top-secret/);
    expect(text()).toContain('"Authorization":"[redacted]"');
  });

  it('censors tokens, passwords, secrets and API keys', () => {
    const { logger, text } = capture();
    logger.warn(
      { token: 'top-secret-1', accessToken: 'top-secret-2', refresh_token: 'top-secret-3', password: 'top-secret-4', nested: { clientSecret: 'top-secret-5', apiKey: 'top-secret-6' } },
      'credentials',
    );
    expect(text()).not.toMatch(/top-secret/);
  });

  it('censors every header and env value of an upstream config, keeping their names', () => {
    const { logger, lines, text } = capture();
    const config = {
      mcpServers: {
        search: { url: 'https://mcp.example.com/mcp', headers: { 'X-Custom-Auth': 'top-secret-1', Authorization: 'Bearer top-secret-2' } },
        local: { command: 'npx', args: ['-y', 'server'], env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'top-secret-3', DB: 'postgres://u:top-secret-4@db' } },
      },
      sessions: { redisUrl: 'redis://:top-secret-5@redis:6379' },
    };
    logger.info({ config }, 'config');
    logger.child({ upstream: config.mcpServers.local }).info('child bindings too');
    expect(text()).not.toMatch(/top-secret/);
    const [logged] = lines();
    expect(logged).toMatchObject({
      config: {
        mcpServers: {
          search: { url: 'https://mcp.example.com/mcp', headers: { 'X-Custom-Auth': '[redacted]', Authorization: '[redacted]' } },
          local: { command: 'npx', env: { GITHUB_PERSONAL_ACCESS_TOKEN: '[redacted]', DB: '[redacted]' } },
        },
      },
    });
  });

  it('leaves the logged object itself unchanged', () => {
    const original = { headers: { Authorization: 'Bearer abc' }, server: 'everything' };
    const censored = redactSecrets(original);
    expect(original.headers.Authorization).toBe('Bearer abc');
    expect(censored).toEqual({ headers: { Authorization: '[redacted]' }, server: 'everything' });
    const clean = { server: 'everything', durationMs: 3 };
    expect(redactSecrets(clean)).toBe(clean);
  });

});
