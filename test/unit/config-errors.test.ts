import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigText } from '../../src/config/load.js';
import { problemAt, problemsOf } from './config-test-helpers.js';

describe('config problems name the key path', () => {
  it('names an unknown top-level key', () => {
    expect(problemAt(problemsOf('severs: {}\n'), 'severs')).toBe('unknown key');
  });

  it('names an unknown key inside a section', () => {
    expect(problemAt(problemsOf('server:\n  prot: 8080\n'), 'server.prot')).toBe('unknown key');
  });

  it('names an unknown key inside a server', () => {
    expect(problemAt(problemsOf('mcpServers:\n  a: {command: x, argv: [y]}\n'), 'mcpServers.a.argv')).toBe('unknown key');
  });

  it('names a value of the wrong type', () => {
    expect(problemAt(problemsOf('server:\n  port: eighty\n'), 'server.port')).toBe('expected number, received string');
  });

  it('names a number out of range', () => {
    expect(problemAt(problemsOf('server:\n  port: 70000\n'), 'server.port')).toMatch(/65535/);
  });

  it('names a server url that is not http(s)', () => {
    expect(problemAt(problemsOf('mcpServers:\n  search: {url: "ftp://a.example"}\n'), 'mcpServers.search.url')).toBe(
      'must be an http(s) URL',
    );
  });

  it('names the command of a stdio server when it is not a string', () => {
    expect(problemsOf('mcpServers:\n  x: {command: 5}\n')).toEqual([
      { path: 'mcpServers.x.command', message: 'expected string, received number' },
    ]);
  });

  it('says a server needs a command or a url when it has neither', () => {
    expect(problemAt(problemsOf('mcpServers:\n  x: {args: [a]}\n'), 'mcpServers.x')).toBe(
      'a server needs either "command" (stdio) or "url" (HTTP)',
    );
  });

  it('says a server cannot have both a command and a url', () => {
    expect(problemAt(problemsOf('mcpServers:\n  x: {command: a, url: "https://a.example"}\n'), 'mcpServers.x')).toMatch(/not both/);
  });

  it('says which kind of server takes a key used on the other kind', () => {
    const problems = problemsOf('mcpServers:\n  x: {command: a, headers: {A: b}}\n');
    expect(problemAt(problems, 'mcpServers.x.headers')).toMatch(/only HTTP servers/);
  });

  it('names a server name that is not allowed', () => {
    expect(problemAt(problemsOf('mcpServers:\n  "": {command: a}\n'), 'mcpServers[""]')).toBe('a server name must not be empty');
  });

  it('says "required" for a missing key', () => {
    expect(problemAt(problemsOf('auth:\n  issuer: https://idp.example\n  signIn: {provider: {issuer: https://idp.example}}\n'), 'auth.signIn.provider.clientId')).toBe('required');
  });

  it('says which of the two auth modes a key belongs to', () => {
    expect(problemAt(problemsOf('auth:\n  jwksUri: https://idp.example/jwks\n'), 'auth.issuer')).toMatch(/^is required: the identity provider/);
  });

  it('asks for jwksUri or introspection with issuer', () => {
    expect(problemAt(problemsOf('auth:\n  issuer: https://idp.example\n'), 'auth.jwksUri')).toMatch(/^is required with issuer, unless introspection is set/);
  });

  it('takes introspection in place of jwksUri, with a minute of caching by default', () => {
    const text = 'auth:\n  issuer: https://idp.example\n  introspection: {endpoint: https://idp.example/introspect, clientId: switchboard, clientSecret: s3cret}\n';
    expect(parseConfigText(text, 'yaml', {}).auth?.introspection).toEqual({
      endpoint: 'https://idp.example/introspect',
      clientId: 'switchboard',
      clientSecret: 's3cret',
      cacheSeconds: 60,
      timeoutMs: 5_000,
    });
  });

  it('says what introspection lacks or holds wrong', () => {
    const problems = problemsOf('auth:\n  issuer: https://idp.example\n  introspection: {endpoint: ftp://idp.example/x, clientId: switchboard, cacheSeconds: 600}\n');
    expect(problemAt(problems, 'auth.introspection.endpoint')).toBe('must be an http(s) URL');
    expect(problemAt(problems, 'auth.introspection.clientSecret')).toBe('required');
    expect(problemAt(problems, 'auth.introspection.cacheSeconds')).toMatch(/300/);
  });

  it('refuses introspection with signIn, whose tokens Switchboard checks itself', () => {
    const signIn = `{provider: {issuer: https://idp.example, clientId: a, clientSecret: b}, secret: ${'s'.repeat(64)}}`;
    const text = `auth:\n  signIn: ${signIn}\n  introspection: {endpoint: https://idp.example/i, clientId: a, clientSecret: b}\n`;
    expect(problemAt(problemsOf(text), 'auth.introspection')).toMatch(/^not with signIn/);
  });

  it('names array elements by index', () => {
    expect(problemAt(problemsOf('policy:\n  rules:\n    - allow: [1]\n'), 'policy.rules[0].allow[0]')).toBe(
      'expected string, received number',
    );
  });

  it('names a value outside an enum with the allowed values', () => {
    expect(problemAt(problemsOf('mcpServers:\n  x: {url: "https://a.example", transport: websocket}\n'), 'mcpServers.x.transport')).toMatch(
      /expected one of/,
    );
  });

  it('reports every problem at once', () => {
    expect(problemsOf('server: {port: x, colour: red}\nmcpServers:\n  x: {command: 5}\n')).toHaveLength(3);
  });

  it('formats one line per problem as file: path: message', () => {
    const error = new ConfigError(
      [
        { path: 'mcpServers.search.url', message: 'must be an http(s) URL' },
        { path: '', message: 'YAML syntax error: something' },
      ],
      'config.yaml',
    );
    expect(error.format()).toBe('config.yaml: mcpServers.search.url: must be an http(s) URL\nconfig.yaml: YAML syntax error: something');
  });
});
