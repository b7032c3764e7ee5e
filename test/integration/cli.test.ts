// The real `switchboard` command, spawned as users run it (through tsx, so no build is needed).
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function switchboard(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  // The caller's own PORT/HOST/REDIS_URL/SWITCHBOARD_CONFIG must not leak into what is tested.
  const { PORT: _port, HOST: _host, REDIS_URL: _redis, SWITCHBOARD_CONFIG: _config, ...env } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', ...args],
      { cwd: REPO_ROOT, env: { ...env, ...extraEnv }, timeout: 20_000 },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr });
      },
    );
  });
}

describe('switchboard command line', () => {
  let dir: string;
  let validFile: string;
  let invalidFile: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'switchboard-cli-'));
    validFile = join(dir, 'valid.yaml');
    invalidFile = join(dir, 'invalid.yaml');
    await writeFile(
      validFile,
      'mcpServers:\n  everything:\n    command: npx\n    args: [-y, "@modelcontextprotocol/server-everything"]\n  search:\n    url: https://mcp.example.com/mcp\n    disabled: true\n',
    );
    await writeFile(invalidFile, 'server:\n  port: eighty\nmcpServers:\n  search:\n    url: ftp://mcp.example.com\n');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('validate exits 0 and prints ok with a summary of the servers for a valid file', async () => {
    const result = await switchboard(['validate', '--config', validFile]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^${escape(validFile)}: ok \\(2 servers: everything \\[stdio\\], search \\[http, disabled\\];`));
  });

  it('validate takes the file as an operand too', async () => {
    const result = await switchboard(['validate', validFile]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`${validFile}: ok`);
  });

  it('validate exits 1 and prints each problem with its key path for an invalid file', async () => {
    const result = await switchboard(['validate', '--config', invalidFile]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      `${invalidFile}: server.port: expected number, received string`,
      `${invalidFile}: mcpServers.search.url: must be an http(s) URL`,
    ]);
  });

  it('validate lists field-level and cross-key problems together, each with its key path', async () => {
    const file = join(dir, 'both-kinds.yaml');
    await writeFile(
      file,
      [
        'server: {port: 99999}',
        'mcpServers:',
        '  github: {url: ftp://github.example.com}',
        'endpoints:',
        '  one: {path: /team, include: ["gihtub/*"]}',
        '  two: {path: /team}',
        'limits:',
        '  servers: {GitHub: {requestsPerMinute: 10}}',
        '',
      ].join('\n'),
    );
    const result = await switchboard(['validate', file]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      `${file}: server.port: Too big: expected number to be <=65535`,
      `${file}: mcpServers.github.url: must be an http(s) URL`,
      `${file}: limits.servers.GitHub: no server "GitHub" in mcpServers; did you mean "github"? (limits name servers as mcpServers writes them)`,
      `${file}: endpoints.one.include[0]: unknown server "gihtub": mcpServers has "github"`,
      `${file}: endpoints.two.path: overlaps endpoint "one" ("/team"); give this endpoint a path of its own`,
    ]);
  });

  it('validate names an unset environment variable', async () => {
    const file = join(dir, 'needs-token.yaml');
    await writeFile(file, 'mcpServers:\n  search:\n    url: https://a.example/mcp\n    headers: {Authorization: "Bearer ${CLI_TEST_TOKEN}"}\n');
    const result = await switchboard(['validate', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${file}: mcpServers.search.headers.Authorization: environment variable CLI_TEST_TOKEN is not set`);
  });

  it('validate exits 1 when the file does not exist', async () => {
    const missing = join(dir, 'missing.yaml');
    const result = await switchboard(['validate', missing]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot read config file ${missing}: ENOENT`);
  });

  it('startup with an invalid config prints the problems and exits 1', async () => {
    const result = await switchboard(['--config', invalidFile]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${invalidFile}: server.port: expected number, received string`);
    expect(result.stderr).toContain(`${invalidFile}: mcpServers.search.url: must be an http(s) URL`);
  });

  it('startup reads the config file named by SWITCHBOARD_CONFIG', async () => {
    const result = await switchboard([], { SWITCHBOARD_CONFIG: invalidFile });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${invalidFile}: server.port:`);
  });

  it('names PORT when the environment sets a bad port', async () => {
    const result = await switchboard(['validate', validFile], { PORT: 'eighty' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('server.port: expected number, received string (from environment variable PORT)');
  });

  it('runs the gateway until SIGTERM, then exits 0', async () => {
    const file = join(dir, 'no-servers.yaml');
    // Port 0: other tests' gateways run at the same time.
    await writeFile(file, 'mcpServers: {}\nadmin: { port: 0 }\n');
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', '--config', file, '--port', '0'], {
      cwd: REPO_ROOT,
      env: { ...process.env, SWITCHBOARD_CONFIG: '', PORT: '', HOST: '', REDIS_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    let stdout = '';
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString('utf8');
          if (stdout.includes('"msg":"switchboard listening"')) resolve();
        });
        void exited.then(() => reject(new Error(`exited before listening: ${stdout}`)));
      });
      child.kill('SIGTERM');
      const [code] = await exited;
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it('writes readable log lines with LOG_FORMAT=pretty, even to a pipe', async () => {
    const file = join(dir, 'no-servers-pretty.yaml');
    await writeFile(file, 'mcpServers: {}\nadmin: { port: 0 }\n');
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', '--config', file, '--port', '0'], {
      cwd: REPO_ROOT,
      env: { ...process.env, SWITCHBOARD_CONFIG: '', PORT: '', HOST: '', REDIS_URL: '', LOG_FORMAT: 'pretty', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    let stdout = '';
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString('utf8');
          if (stdout.includes('switchboard listening')) resolve();
        });
        void exited.then(() => reject(new Error(`exited before listening: ${stdout}`)));
      });
      expect(stdout).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: switchboard listening \{.*"url":"http:\/\/127\.0\.0\.1:\d+\/mcp"/m);
      child.kill('SIGTERM');
      const [code] = await exited;
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it('a LOG_FORMAT that is neither json nor pretty stops startup, naming the setting', async () => {
    const file = join(dir, 'no-servers-bad-format.yaml');
    await writeFile(file, 'mcpServers: {}\nadmin: { port: 0 }\n');
    const result = await switchboard(['--config', file, '--port', '0'], { LOG_FORMAT: 'text' });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('switchboard: LOG_FORMAT must be json or pretty, not "text"\n');
  });

  it('--help prints the usage and exits 0', async () => {
    const result = await switchboard(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage:\n {2}switchboard \[--config FILE\] \[--host ADDR\] \[--port N\]/);
  });

  it('--version prints the package version and exits 0', async () => {
    const { version } = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const result = await switchboard(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${version}\n`);
  });

  it('an unknown flag prints a message and the usage and exits 2', async () => {
    const result = await switchboard(['--frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^switchboard: Unknown option '--frobnicate'\n\nUsage:/);
  });

  it('a --port that is not a port number exits 2', async () => {
    const result = await switchboard(['validate', validFile, '--port', 'eighty']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--port: expected a port number');
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
