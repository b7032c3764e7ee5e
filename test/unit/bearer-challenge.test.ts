import { describe, expect, it } from 'vitest';
import { audienceMatches } from '../../src/auth/audience.js';
import { bearerChallenge, resourceMetadataUrl } from '../../src/auth/challenge.js';
import { scopesOf } from '../../src/auth/principal-from-claims.js';

describe('the resource metadata URL', () => {
  it('puts the well-known path between host and path (RFC 9728)', () => {
    expect(resourceMetadataUrl('https://mcp.example.com/mcp')).toBe('https://mcp.example.com/.well-known/oauth-protected-resource/mcp');
    expect(resourceMetadataUrl('https://mcp.example.com/')).toBe('https://mcp.example.com/.well-known/oauth-protected-resource');
    expect(resourceMetadataUrl('http://127.0.0.1:8080/a/mcp/')).toBe('http://127.0.0.1:8080/.well-known/oauth-protected-resource/a/mcp');
  });
});

describe('the bearer challenge', () => {
  it('carries resource_metadata, the scopes and the error', () => {
    expect(bearerChallenge({ resourceMetadata: 'https://x/.well-known/oauth-protected-resource', scope: ['a', 'b'], error: 'insufficient_scope' })).toBe(
      'Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x/.well-known/oauth-protected-resource"',
    );
  });

  it('drops characters that would break the quoted string', () => {
    expect(bearerChallenge({ resourceMetadata: 'https://x', errorDescription: 'say "hi"\n\\' })).toBe(
      'Bearer error_description="say hi", resource_metadata="https://x"',
    );
  });
});

describe('the audience check', () => {
  it('accepts the canonical URI with another case of scheme and host, or a trailing slash', () => {
    expect(audienceMatches('HTTPS://MCP.Example.com/mcp/', ['https://mcp.example.com/mcp'])).toBe(true);
    expect(audienceMatches(['other', 'https://mcp.example.com/mcp'], ['https://mcp.example.com/mcp'])).toBe(true);
  });

  it('refuses another path, another host, and a path that differs in case', () => {
    expect(audienceMatches('https://mcp.example.com/other', ['https://mcp.example.com/mcp'])).toBe(false);
    expect(audienceMatches('https://evil.example/mcp', ['https://mcp.example.com/mcp'])).toBe(false);
    expect(audienceMatches('https://mcp.example.com/MCP', ['https://mcp.example.com/mcp'])).toBe(false);
    expect(audienceMatches(undefined, ['https://mcp.example.com/mcp'])).toBe(false);
  });
});

describe('scopes', () => {
  it('come from a space-separated scope claim or an scp array', () => {
    expect(scopesOf({ scope: 'a  b' })).toEqual(['a', 'b']);
    expect(scopesOf({ scp: ['c', 5, 'd'] })).toEqual(['c', 'd']);
    expect(scopesOf({})).toEqual([]);
  });
});
