// Policy decisions as the contract's "Names" section states them, through the pure functions.
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../src/auth/principal.js';
import { configSchema, type PolicyConfig } from '../../src/config/schema.js';
import { compilePattern } from '../../src/policy/glob.js';
import { accessFor, compilePolicy } from '../../src/policy/policy.js';

function policy(input: unknown): PolicyConfig {
  const parsed = configSchema.parse({ policy: input }).policy;
  if (!parsed) throw new Error('no policy');
  return parsed;
}

function principal(sub: string, scopes: string[] = [], claims: Record<string, unknown> = {}): Principal {
  return { sub, scopes, claims: { sub, ...claims } };
}

function allows(config: PolicyConfig, who: Principal | undefined, server: string, name: string): boolean {
  return accessFor(compilePolicy(config), who).allows(server, name);
}

describe('policy patterns', () => {
  it('match every item of every server with */*, URIs with slashes included', () => {
    const all = compilePattern('*/*');
    expect(all('everything', 'echo')).toBe(true);
    expect(all('everything', 'demo://resource/static/document/architecture.md')).toBe(true);
    expect(all('fs', 'file:///etc/passwd')).toBe(true);
  });

  it('match a name prefix with a trailing star', () => {
    const reads = compilePattern('memory/read_*');
    expect(reads('memory', 'read_graph')).toBe(true);
    expect(reads('memory', 'delete_entities')).toBe(false);
    expect(reads('other', 'read_graph')).toBe(false);
  });

  it('let a star in the name cross "/" so a URI prefix covers everything below it', () => {
    const below = compilePattern('fs/file:///srv/*');
    expect(below('fs', 'file:///srv/a/b/c.txt')).toBe(true);
    expect(below('fs', 'file:///etc/passwd')).toBe(false);
  });

  it('never let a star in the server part reach into the name', () => {
    const pattern = compilePattern('e*/echo');
    expect(pattern('everything', 'echo')).toBe(true);
    expect(pattern('everything', 'x/echo')).toBe(false);
  });

  it('match a URI template as a string, braces included', () => {
    expect(compilePattern('everything/demo://resource/dynamic/*')('everything', 'demo://resource/dynamic/text/{resourceId}')).toBe(true);
    expect(compilePattern('everything/demo://x/\\{id\\}')('everything', 'demo://x/{id}')).toBe(true);
  });

  it('accept braces as alternatives and a question mark as one character', () => {
    expect(compilePattern('everything/{echo,get-sum}')('everything', 'get-sum')).toBe(true);
    expect(compilePattern('everything/ech?')('everything', 'echo')).toBe(true);
  });

  it('are refused at load time when they are not {server}/{name}', () => {
    expect(() => policy({ rules: [{ allow: ['echo'] }] })).toThrow(/\{server\}\/\{name\}/);
    expect(() => compilePattern('everything/')).toThrow(/\{server\}\/\{name\}/);
  });
});

describe('policy decisions', () => {
  const contractExample = policy({
    default: 'deny',
    rules: [
      { when: { claims: { groups: 'admins' } }, allow: ['*/*'] },
      { when: { scopes: ['mcp:read'] }, allow: ['memory/read_*', 'everything/echo'], deny: ['memory/delete_*'] },
    ],
  });

  it('let an array claim that contains the value match a rule', () => {
    expect(allows(contractExample, principal('ann', [], { groups: ['staff', 'admins'] }), 'memory', 'delete_entities')).toBe(true);
  });

  it('add up the allows of every matching rule', () => {
    const reader = principal('bob', ['mcp:read']);
    expect(allows(contractExample, reader, 'memory', 'read_graph')).toBe(true);
    expect(allows(contractExample, reader, 'everything', 'echo')).toBe(true);
    expect(allows(contractExample, reader, 'everything', 'get-sum')).toBe(false);
  });

  it('let a deny of any matching rule beat the allows of the others', () => {
    const adminReader = principal('cy', ['mcp:read'], { groups: 'admins' });
    expect(allows(contractExample, adminReader, 'memory', 'delete_entities')).toBe(false);
    expect(allows(contractExample, adminReader, 'memory', 'create_entities')).toBe(true);
  });

  it('leave what no matching rule names to the default', () => {
    const nobody = principal('dee');
    expect(allows(contractExample, nobody, 'everything', 'echo')).toBe(false);
    const open = policy({ default: 'allow', rules: [{ when: { sub: 'dee' }, deny: ['everything/get-env'] }] });
    expect(allows(open, nobody, 'everything', 'echo')).toBe(true);
    expect(allows(open, nobody, 'everything', 'get-env')).toBe(false);
  });

  it('need every condition of a rule to hold', () => {
    const both = policy({ default: 'deny', rules: [{ when: { sub: 'eve', scopes: ['a', 'b'] }, allow: ['*/*'] }] });
    expect(allows(both, principal('eve', ['a', 'b']), 's', 'x')).toBe(true);
    expect(allows(both, principal('eve', ['a']), 's', 'x')).toBe(false);
    expect(allows(both, principal('fay', ['a', 'b']), 's', 'x')).toBe(false);
  });

  it('treat a list of claim values as any of them, and compare scalars by their text', () => {
    const tiers = policy({ default: 'deny', rules: [{ when: { claims: { tier: [2, 'gold'] } }, allow: ['*/*'] }] });
    expect(allows(tiers, principal('g', [], { tier: '2' }), 's', 'x')).toBe(true);
    expect(allows(tiers, principal('g', [], { tier: 'gold' }), 's', 'x')).toBe(true);
    expect(allows(tiers, principal('g', [], { tier: 3 }), 's', 'x')).toBe(false);
    expect(allows(tiers, principal('g', [], { tier: { nested: 2 } }), 's', 'x')).toBe(false);
  });

  it('find a nested claim by a dotted name when no top-level claim has that name', () => {
    const roles = policy({ default: 'deny', rules: [{ when: { claims: { 'realm_access.roles': 'mcp' } }, allow: ['*/*'] }] });
    expect(allows(roles, principal('h', [], { realm_access: { roles: ['mcp', 'x'] } }), 's', 'x')).toBe(true);
  });

  it('let rules without conditions match the anonymous caller, and rules with conditions not', () => {
    const mixed = policy({
      default: 'deny',
      rules: [{ allow: ['everything/echo'] }, { when: { sub: 'x' }, allow: ['*/*'] }],
    });
    expect(allows(mixed, undefined, 'everything', 'echo')).toBe(true);
    expect(allows(mixed, undefined, 'everything', 'get-sum')).toBe(false);
  });

  it('give principals that match the same rules the same key, and others another', () => {
    const compiled = compilePolicy(contractExample);
    const a = accessFor(compiled, principal('a', ['mcp:read']));
    const b = accessFor(compiled, principal('b', ['mcp:read', 'other']));
    const c = accessFor(compiled, principal('c', [], { groups: 'admins' }));
    expect(a.key).toBe(b.key);
    expect(a.key).not.toBe(c.key);
  });
});

describe('the server part of a policy pattern', () => {
  it.each([
    ['GitHub/*', 'GitHub'],
    ['github/*', 'GitHub'],
    ['brave_search/*', 'brave_search'],
    ['brave-search/*', 'brave_search'],
    ['My Notes/*', 'My Notes'],
    ['my-notes/*', 'My Notes'],
    ['my-*/*', 'My Notes'],
    ['*/*', 'My Notes'],
  ])('%j matches the server named %j (its config name or its slug)', (pattern, server) => {
    expect(compilePattern(pattern)(server, 'search')).toBe(true);
  });

  it('reaches a server whose name has a "/" through its slug', () => {
    const server = '@acme/tools';
    expect(compilePattern('acme-tools/*')(server, 'run')).toBe(true);
    // Split at the first "/", the config name form is not a pattern for it.
    expect(compilePattern('@acme/tools/*')(server, 'run')).toBe(false);
  });

  it('reaches a server whose name is all emoji through its hash slug', () => {
    const pattern = compilePattern('server-*/*');
    expect(pattern('🚀', 'launch')).toBe(true);
  });

  it('does not match a server that neither its name nor its slug matches', () => {
    expect(compilePattern('gitlab/*')('GitHub', 'search')).toBe(false);
    expect(compilePattern('GITHUB/*')('GitHub', 'search')).toBe(false);
  });

  it('keeps a name that fits the old rule matched by itself only, as before', () => {
    expect(compilePattern('everything/echo')('everything', 'echo')).toBe(true);
    expect(compilePattern('Everything/echo')('everything', 'echo')).toBe(false);
  });

  it('lets a deny by slug beat an allow by config name', () => {
    const config = policy({ default: 'deny', rules: [{ allow: ['My Notes/*'], deny: ['my-notes/delete_*'] }] });
    expect(allows(config, undefined, 'My Notes', 'read_note')).toBe(true);
    expect(allows(config, undefined, 'My Notes', 'delete_note')).toBe(false);
  });
});
