import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { problemAt, problemsOf } from './config-test-helpers.js';

// A .vscode/mcp.json as VS Code writes it.
const vsCodeFile = (servers: object, inputs: object[] = []) => JSON.stringify({ inputs, servers });

describe("a VS Code mcp.json is a config as it is", () => {
  it('reads its servers as mcpServers, types and all', () => {
    const config = parseConfigText(
      vsCodeFile({
        memory: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
        remote: { type: 'http', url: 'https://mcp.example.com/mcp' },
      }),
      'json',
      {},
    );
    expect(config.mcpServers.memory).toMatchObject({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] });
    expect(config.mcpServers.remote).toMatchObject({ url: 'https://mcp.example.com/mcp', transport: 'streamable-http' });
  });

  it('reads ${env:NAME} as ${NAME}', () => {
    const config = parseConfigText(
      vsCodeFile({ remote: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${env:TOKEN}' } } }),
      'json',
      { TOKEN: 'abc' },
    );
    expect(config.mcpServers.remote).toMatchObject({ headers: { Authorization: 'Bearer abc' } });
  });

  it('refuses an ${input:...} once, at its key path, naming the variable to use instead', () => {
    const problems = problemsOf(
      vsCodeFile({ gh: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${input:github-token}' } } }, [
        { type: 'promptString', id: 'github-token', password: true },
      ]),
      { format: 'json' },
    );
    expect(problems.filter((problem) => problem.path === 'mcpServers.gh.headers.Authorization')).toHaveLength(1);
    expect(problemAt(problems, 'mcpServers.gh.headers.Authorization')).toMatch(/write \$\{GITHUB_TOKEN\} and set that environment variable/);
  });

  it('leaves `servers` an unknown key in a file that has gateway sections', () => {
    const problems = problemsOf(JSON.stringify({ server: { port: 8080 }, servers: { a: { command: 'x' } } }), { format: 'json' });
    expect(problemAt(problems, 'servers')).toBe('unknown key');
  });
});
