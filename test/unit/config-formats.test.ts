import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfigText } from '../../src/config/load.js';
import { problemsOf } from './config-test-helpers.js';

describe('config file formats', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'switchboard-config-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a YAML file', async () => {
    const file = join(dir, 'gateway.yaml');
    await writeFile(file, 'server:\n  port: 9000\nmcpServers:\n  everything:\n    command: npx\n    args: [-y, server-everything]\n');
    const config = await loadConfig(file, {});
    expect(config.server.port).toBe(9000);
    expect(config.mcpServers.everything).toMatchObject({ command: 'npx', args: ['-y', 'server-everything'] });
  });

  it('reads a .yml file as YAML', async () => {
    const file = join(dir, 'gateway.yml');
    await writeFile(file, 'server: {port: 9001}\n');
    expect((await loadConfig(file, {})).server.port).toBe(9001);
  });

  it('reads a JSON file', async () => {
    const file = join(dir, 'gateway.json');
    await writeFile(file, JSON.stringify({ server: { port: 9002 }, mcpServers: { search: { url: 'https://mcp.example.com/mcp' } } }));
    const config = await loadConfig(file, {});
    expect(config.server.port).toBe(9002);
    expect(config.mcpServers.search).toMatchObject({ url: 'https://mcp.example.com/mcp', transport: 'auto' });
  });

  it('reads a file with any other extension as YAML', async () => {
    const file = join(dir, 'gateway.conf');
    await writeFile(file, 'server:\n  port: 9003\n');
    expect((await loadConfig(file, {})).server.port).toBe(9003);
  });

  it('parses a .json file strictly as JSON, so YAML in it is a syntax error', async () => {
    const file = join(dir, 'gateway.json');
    await writeFile(file, 'server:\n  port: 9004\n');
    await expect(loadConfig(file, {})).rejects.toThrow(/JSON syntax error/);
  });

  it('accepts a Claude Desktop file that holds only mcpServers', () => {
    const claudeDesktop = JSON.stringify({
      mcpServers: {
        filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] },
        memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: '/tmp/m.json' } },
      },
    });
    const config = parseConfigText(claudeDesktop, 'json', {});
    expect(Object.keys(config.mcpServers)).toEqual(['filesystem', 'memory']);
    expect(config.server).toMatchObject({ host: '127.0.0.1', port: 8080, path: '/mcp' });
    expect(config.sessions.store).toBe('memory');
  });

  it('treats an empty YAML file as a config with every default', () => {
    const config = parseConfigText('# nothing here yet\n', 'yaml', {});
    expect(config.mcpServers).toEqual({});
    expect(config.server.port).toBe(8080);
  });

  it('names the line and column of a YAML syntax error', () => {
    const [problem] = problemsOf('server:\n  port: 8080\n  host: a: b\n');
    expect(problem?.message).toMatch(/^YAML syntax error: .*line 3, column \d+/);
  });

  it('names the line and column of a JSON syntax error', () => {
    const [problem] = problemsOf('{\n  "server": {\n    "port": 8080,\n  }\n}', { format: 'json' });
    expect(problem?.message).toMatch(/^JSON syntax error: .*line 4,? column \d+/);
  });

  it('rejects duplicate keys in YAML', () => {
    const [problem] = problemsOf('server:\n  port: 1\n  port: 2\n');
    expect(problem?.message).toMatch(/unique/);
  });

  it('rejects a file whose top level is not a mapping', () => {
    const problems = problemsOf('- a\n- b\n');
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe('');
    expect(problems[0]?.message).toMatch(/top level/);
  });

  it('reports a missing file as cannot read, with the reason', async () => {
    const file = join(dir, 'absent.yaml');
    const error = await loadConfig(file, {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).format()).toBe(
      `cannot read config file ${file}: ENOENT: no such file or directory, open '${file}'`,
    );
  });

  it('prefixes every problem with the file name as given', async () => {
    const file = join(dir, 'bad.yaml');
    await writeFile(file, 'server:\n  port: x\n  colour: blue\n');
    const error = (await loadConfig(file, {}).catch((caught: unknown) => caught)) as ConfigError;
    expect(error.format().split('\n')).toEqual([
      `${file}: server.port: expected number, received string`,
      `${file}: server.colour: unknown key`,
    ]);
  });
});
