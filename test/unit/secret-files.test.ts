import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { withSecretFiles } from '../../src/config/secret-files.js';

describe('secrets mounted as files', () => {
  it('fill ${VAR} from the file VAR_FILE names when VAR is unset, without the final newline', () => {
    const { env } = withSecretFiles({ TOKEN_FILE: '/run/secrets/token' }, (path) => (path === '/run/secrets/token' ? 's3cret\n' : ''));
    expect(env.TOKEN).toBe('s3cret');
  });

  it('leave a set variable alone, and never read the file then', () => {
    const { env } = withSecretFiles({ TOKEN: 'from-env', TOKEN_FILE: '/x' }, () => {
      throw new Error('must not be read');
    });
    expect(env.TOKEN).toBe('from-env');
  });

  it('reach an upstream header through the config loader', () => {
    const config = parseConfigText(
      JSON.stringify({ mcpServers: { search: { url: 'https://search.example/mcp', headers: { Authorization: 'Bearer ${SEARCH_TOKEN}' } } } }),
      'json',
      { SEARCH_TOKEN_FILE: new URL('../fixtures/secret-token.txt', import.meta.url).pathname },
    );
    const search = config.mcpServers.search;
    expect(search && 'headers' in search ? search.headers.Authorization : undefined).toBe('Bearer token-from-a-file');
  });

  it('make an unreadable file a config problem that names the variable', () => {
    expect(() => parseConfigText(JSON.stringify({ server: { path: '/${P}' } }), 'json', { P_FILE: '/no/such/file' })).toThrow(/P_FILE names \/no\/such\/file/);
  });
});
