// The one redaction of text that leaves the gateway: URL user info, secret parameters, and the
// values the config in force holds as secrets; through the real logger and the client's error too.
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { toRpcError } from '../../src/gateway/errors.js';
import { createLogger } from '../../src/observe/logger.js';
import { configuredSecrets, redactText, type ConfiguredSecrets } from '../../src/observe/redact-text.js';
import { UpstreamRpcError, UpstreamUnavailableError } from '../../src/upstream/errors.js';

const held: ConfiguredSecrets[] = [];
function hold(config: unknown): ConfiguredSecrets {
  const secrets = configuredSecrets(config);
  held.push(secrets);
  return secrets;
}
afterEach(() => {
  for (const secrets of held.splice(0)) secrets.release();
});

describe('redactText', () => {
  it('censors the user info of any URL in the text', () => {
    expect(redactText('could not fetch http://ops:hunter2@db.example:8080/mcp, and redis://:pw@redis:6379 too')).toBe(
      'could not fetch http://[redacted]@db.example:8080/mcp, and redis://[redacted]@redis:6379 too',
    );
  });

  it('censors the values of parameters named as secrets, and keeps the others', () => {
    expect(redactText('GET https://x.example/a?lang=en&access_token=abc123&X-Amz-Signature=f00d#top failed')).toBe(
      'GET https://x.example/a?lang=en&access_token=[redacted]&X-Amz-Signature=[redacted]#top failed',
    );
    expect(redactText('ran with --api-key=sk-1 and password=p, page=2')).toBe('ran with --api-key=[redacted] and password=[redacted], page=2');
  });

  it('censors the values the config holds as secrets, wherever the text quotes them', () => {
    hold({
      mcpServers: {
        search: { url: 'https://search.example/mcp', headers: { 'X-Api-Key': 'sk-live-123456', Authorization: 'Bearer tok-abcdef' } },
        local: { command: 'node', env: { GITHUB_TOKEN: 'ghp_0123456789', DEBUG: '1' } },
      },
      credentials: { tokenExchange: { clientSecret: 'client-secret-9' } },
    });
    expect(redactText('rejected key sk-live-123456; token tok-abcdef; ghp_0123456789; client-secret-9')).toBe(
      'rejected key [redacted]; token [redacted]; [redacted]; [redacted]',
    );
    // Too short to be a credential, too common to censor.
    expect(redactText('exit code 1')).toBe('exit code 1');
  });

  it('censors an env value by its secret name or its credential look, and leaves settings readable', () => {
    hold({
      mcpServers: {
        local: {
          command: 'node',
          env: { GITHUB_PAT: 'short-pat-1', OPAQUE: 'a9f3c2e1b7d4a6f0c3e2', MODE: 'modern', LOG_DIR: '/var/data/logs' },
        },
      },
    });
    expect(redactText('pat short-pat-1, opaque a9f3c2e1b7d4a6f0c3e2')).toBe('pat [redacted], opaque [redacted]');
    expect(redactText('era modern, logs in /var/data/logs')).toBe('era modern, logs in /var/data/logs');
  });

  it('keeps a released gateway’s secrets out of the list, and a reload’s added to it', () => {
    const secrets = hold({ mcpServers: { a: { url: 'https://a.example/mcp', headers: { 'X-Key': 'first-secret' } } } });
    secrets.add({ mcpServers: { a: { url: 'https://a.example/mcp', headers: { 'X-Key': 'second-secret' } } } });
    expect(redactText('first-secret second-secret')).toBe('[redacted] [redacted]');
    secrets.release();
    expect(redactText('first-secret second-secret')).toBe('first-secret second-secret');
  });

  it('censors what a log line says: fields, the message, and a logged Error', () => {
    hold({ mcpServers: { a: { url: 'https://a.example/mcp', headers: { 'X-Key': 'header-value-42' } } } });
    let text = '';
    const logger = createLogger({
      destination: new Writable({
        write(chunk: Buffer, _encoding, callback) {
          text += chunk.toString('utf8');
          callback();
        },
      }),
    });
    logger.warn({ error: 'could not connect to http://u:pw-in-url@h/mcp: rejected header-value-42' }, 'upstream unavailable');
    logger.warn(`failed with token=tok-in-message`);
    logger.error({ err: new Error('boom at https://h/x?sig=sig-in-error', { cause: new Error('header-value-42') }) }, 'failed');
    expect(text).not.toMatch(/pw-in-url|header-value-42|tok-in-message|sig-in-error/);
    expect(text).toContain('rejected [redacted]');
  });

  it('censors the errors clients get from upstream failures, message and data', () => {
    hold({ mcpServers: { a: { url: 'https://a.example/mcp', headers: { 'X-Key': 'header-value-77' } } } });
    const unavailable = toRpcError(new UpstreamUnavailableError('a', 'could not connect to https://u:pw-77@a.example/mcp: bad key header-value-77'));
    expect(unavailable.message).toBe('upstream "a" is unavailable: could not connect to https://[redacted]@a.example/mcp: bad key [redacted]');
    const refused = toRpcError(new UpstreamRpcError('a', -32000, 'key header-value-77 is not valid', { echoed: 'header-value-77' }));
    expect(JSON.stringify(refused.toJson())).not.toContain('header-value-77');
  });
});
