import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { interpolateString } from '../../src/config/interpolate.js';
import { problemAt, problemsOf } from './config-test-helpers.js';

describe('${VAR} interpolation', () => {
  it('replaces ${VAR} with the variable', () => {
    const config = parseConfigText('mcpServers:\n  search:\n    url: https://mcp.example.com/mcp\n    headers: {Authorization: "Bearer ${TOKEN}"}\n', 'yaml', {
      TOKEN: 's3cret',
    });
    expect(config.mcpServers.search).toMatchObject({ headers: { Authorization: 'Bearer s3cret' } });
  });

  it('uses the default of ${VAR:-default} when VAR is unset', () => {
    const config = parseConfigText('server:\n  host: ${BIND:-0.0.0.0}\n', 'yaml', {});
    expect(config.server.host).toBe('0.0.0.0');
  });

  it('uses the default of ${VAR:-default} when VAR is empty', () => {
    expect(interpolateString('${BIND:-0.0.0.0}', { BIND: '' }).value).toBe('0.0.0.0');
  });

  it('prefers the variable over the default when VAR is set', () => {
    expect(interpolateString('${BIND:-0.0.0.0}', { BIND: '10.0.0.1' }).value).toBe('10.0.0.1');
  });

  it('reports an unset ${VAR} with both the variable and the key path', () => {
    const problems = problemsOf('mcpServers:\n  search:\n    url: https://a.example/mcp\n    headers: {Authorization: "Bearer ${SEARCH_TOKEN}"}\n');
    expect(problems).toEqual([
      { path: 'mcpServers.search.headers.Authorization', message: 'environment variable SEARCH_TOKEN is not set' },
    ]);
  });

  it('reports every unset variable, not only the first', () => {
    const problems = problemsOf('mcpServers:\n  a:\n    command: ${A_CMD}\n    args: ["${A_ARG}", "${B_ARG}"]\n');
    expect(problems.map((problem) => problem.message)).toEqual([
      'environment variable A_CMD is not set',
      'environment variable A_ARG is not set',
      'environment variable B_ARG is not set',
    ]);
    expect(problems.map((problem) => problem.path)).toEqual(['mcpServers.a.command', 'mcpServers.a.args[0]', 'mcpServers.a.args[1]']);
  });

  it('keeps $${ as a literal ${', () => {
    const config = parseConfigText('mcpServers:\n  a:\n    command: echo\n    args: ["$${HOME}", "cost: $$5"]\n', 'yaml', {});
    expect(config.mcpServers.a).toMatchObject({ args: ['${HOME}', 'cost: $$5'] });
  });

  it('ignores references in YAML comments', () => {
    const config = parseConfigText('server:\n  # port: ${NOT_SET_ANYWHERE}\n  port: 9000\n', 'yaml', {});
    expect(config.server.port).toBe(9000);
  });

  it('does not interpolate the value of a variable again', () => {
    expect(interpolateString('${A}', { A: '${B}', B: 'no' }).value).toBe('${B}');
  });

  it('turns a whole-value ${PORT} into a number where the schema expects a number', () => {
    const config = parseConfigText('server:\n  port: ${LISTEN_PORT}\n', 'yaml', { LISTEN_PORT: '9100' });
    expect(config.server.port).toBe(9100);
  });

  it('turns a quoted "${PORT}" in JSON into a number too', () => {
    const config = parseConfigText('{"server": {"port": "${LISTEN_PORT}"}}', 'json', { LISTEN_PORT: '9101' });
    expect(config.server.port).toBe(9101);
  });

  it('turns "true" and "false" into booleans where the schema expects a boolean', () => {
    const config = parseConfigText('mcpServers:\n  a: {command: x, enabled: "${A_ENABLED:-false}"}\n', 'yaml', {});
    expect(config.mcpServers.a?.enabled).toBe(false);
  });

  it('keeps a numeric-looking value a string where the schema expects a string', () => {
    const config = parseConfigText('mcpServers:\n  a: {url: "https://a.example/mcp", headers: {X-Version: "${API_VERSION}"}}\n', 'yaml', {
      API_VERSION: '2',
    });
    expect(config.mcpServers.a).toMatchObject({ headers: { 'X-Version': '2' } });
  });

  it('reports a reference without a closing brace', () => {
    expect(problemAt(problemsOf('server:\n  host: "${HOST"\n'), 'server.host')).toMatch(/no closing "}"/);
  });

  it('reports a reference that is not a variable name', () => {
    expect(problemAt(problemsOf('server:\n  host: "${not a name}"\n'), 'server.host')).toMatch(/is not \$\{NAME\}/);
  });
});
