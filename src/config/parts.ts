// What parsed of a config that may not have parsed whole: the cross-key checks (cross-key.ts) run
// on it, so that `switchboard validate` lists a clash between endpoints, a selector naming no
// server or a colliding rename beside a port out of range, in one run. Each key is parsed on its
// own; a key that does not parse is left out (the schema reports it), and a check that needs it
// is skipped rather than guessed.
import type { z } from 'zod';
import { isPlainObject } from './key-path.js';
import {
  endpointName,
  endpointSection,
  namespaceSection,
  serverLimitObject,
  serverName,
  serverObject,
  sessionsSection,
  upstreamCommon,
  type EndpointConfig,
} from './schema.js';

/** Refused by the schema under its own name (schema.ts); no check needs to name it again. */
const PROTO_KEY = '__proto__';

type Fields<Shape extends Record<string, z.ZodType>> = { readonly [Key in keyof Shape]?: z.output<Shape[Key]> };

export interface ServerPart extends Fields<typeof upstreamCommon> {
  readonly kind: 'stdio' | 'http';
}

export interface ConfigParts {
  readonly server: Fields<typeof serverObject.shape>;
  readonly separator: string | undefined;
  /** Every server name the file writes, whether its entry parsed or not. */
  readonly serverNames: readonly string[];
  readonly servers: Readonly<Record<string, ServerPart>>;
  readonly hasAuth: boolean;
  /** auth.signIn is written: Switchboard is the authorization server. */
  readonly hasSignIn: boolean;
  /** auth.browserSignIn is written: resource-server mode signs browsers in at the team's provider. */
  readonly hasBrowserSignIn: boolean;
  /** Undefined when `sessions` did not parse. */
  readonly sessions: { readonly store: 'memory' | 'redis'; readonly credentialKey: string | undefined } | undefined;
  readonly endpoints: Readonly<Record<string, Partial<EndpointConfig>>>;
  /** The keys of limits.servers as written, and the per-tool limits of each. */
  readonly limitedServers: readonly string[];
  readonly limitedTools: Readonly<Record<string, readonly string[]>>;
  /** The policy rules' patterns as written, with their key paths (a malformed one is skipped by the checks). */
  readonly policyPatterns: readonly { readonly path: readonly PropertyKey[]; readonly pattern: string }[];
}

/** Each key of `shape` that parses from `raw` on its own; absent ones take their defaults. */
function fieldsThatParse<Shape extends Record<string, z.ZodType>>(shape: Shape, raw: unknown): Fields<Shape> {
  const source = isPlainObject(raw) ? raw : {};
  const parsed: Record<string, unknown> = {};
  for (const key of Object.keys(shape)) {
    const result = shape[key]!.safeParse(source[key]);
    if (result.success && result.data !== undefined) parsed[key] = result.data;
  }
  return parsed as Fields<Shape>;
}

function entries(raw: unknown): [string, unknown][] {
  return isPlainObject(raw) ? Object.entries(raw) : [];
}

export function partsOf(tree: Record<string, unknown>): ConfigParts {
  const serverNames = entries(tree.mcpServers)
    .map(([name]) => name)
    .filter((name) => name !== PROTO_KEY && serverName.safeParse(name).success);
  const servers = Object.fromEntries(
    entries(tree.mcpServers)
      .filter(([name, entry]) => serverNames.includes(name) && isPlainObject(entry))
      .map(([name, entry]) => [name, { ...fieldsThatParse(upstreamCommon, entry), kind: isPlainObject(entry) && 'command' in entry ? 'stdio' : 'http' } as ServerPart]),
  );
  const sessions = sessionsSection.safeParse(tree.sessions);
  const endpoints = Object.fromEntries(
    entries(tree.endpoints)
      .filter(([name]) => endpointName.safeParse(name).success)
      .map(([name, entry]) => [name, fieldsThatParse(endpointSection.shape, entry)]),
  );
  const limits = isPlainObject(tree.limits) ? tree.limits : {};
  const limitedTools = Object.fromEntries(
    entries(limits.servers).map(([name, entry]) => [name, Object.keys(fieldsThatParse(serverLimitObject.shape, entry).tools ?? {})]),
  );
  return {
    server: fieldsThatParse(serverObject.shape, tree.server),
    separator: fieldsThatParse(namespaceSection.shape, tree.namespace).separator,
    serverNames,
    servers,
    hasAuth: tree.auth !== undefined && tree.auth !== null,
    hasSignIn: isPlainObject(tree.auth) && tree.auth.signIn !== undefined && tree.auth.signIn !== null,
    hasBrowserSignIn: isPlainObject(tree.auth) && tree.auth.browserSignIn !== undefined && tree.auth.browserSignIn !== null,
    sessions: sessions.success ? { store: sessions.data.store, credentialKey: sessions.data.credentialKey } : undefined,
    endpoints,
    limitedServers: entries(limits.servers)
      .map(([name]) => name)
      .filter((name) => name !== PROTO_KEY),
    limitedTools,
    policyPatterns: policyPatternsOf(tree.policy),
  };
}

function policyPatternsOf(policy: unknown): ConfigParts['policyPatterns'] {
  const rules = isPlainObject(policy) && Array.isArray(policy.rules) ? policy.rules : [];
  return rules.flatMap((rule: unknown, index) =>
    (['allow', 'deny'] as const).flatMap((key) => {
      const patterns = isPlainObject(rule) && Array.isArray(rule[key]) ? (rule[key] as unknown[]) : [];
      return patterns.flatMap((pattern, at) => (typeof pattern === 'string' ? [{ path: ['policy', 'rules', index, key, at], pattern }] : []));
    }),
  );
}
