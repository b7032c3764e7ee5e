// The config as the admin API shows it: secrets censored wherever they sit, structure kept.
import { describe, expect, it } from 'vitest';
import { redactedConfig } from '../../src/admin/config-view.js';

describe('redactedConfig', () => {
  it('censors header and env values, secret-named keys, and the secrets of URLs, and keeps the rest', () => {
    const shown = redactedConfig({
      sessions: { redisUrl: 'redis://:pw@redis:6379', idleTimeoutSeconds: 60 },
      mrtr: { stateSecret: 'sealing-key-of-32-characters-long!' },
      mcpServers: {
        search: { url: 'https://user:pw@search.example/mcp?token=abc&lang=en', headers: { Authorization: 'Bearer x', 'X-Team': 'blue' } },
        local: { command: 'node', args: ['server.js', '--port', '1'], env: { API_KEY: 'k' } },
        jira: { url: 'https://jira.example/mcp', credentials: { tokenExchange: { tokenEndpoint: 'https://idp.example/token', clientId: 'gw', clientSecret: 's', privateKey: 'pem' } } },
      },
    }) as Record<string, Record<string, unknown>>;
    expect(shown).toEqual({
      sessions: { redisUrl: '[redacted]', idleTimeoutSeconds: 60 },
      mrtr: { stateSecret: '[redacted]' },
      mcpServers: {
        search: { url: 'https://redacted@search.example/mcp?token=%5Bredacted%5D&lang=en', headers: { Authorization: '[redacted]', 'X-Team': '[redacted]' } },
        local: { command: 'node', args: ['server.js', '--port', '1'], env: { API_KEY: '[redacted]' } },
        jira: {
          url: 'https://jira.example/mcp',
          credentials: { tokenExchange: { tokenEndpoint: 'https://idp.example/token', clientId: 'gw', clientSecret: '[redacted]', privateKey: '[redacted]' } },
        },
      },
    });
  });
});
