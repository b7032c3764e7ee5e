// What a person has allowed a client, remembered per (person, client) beyond one browser: the next
// authorization of that client for scopes already allowed asks nothing. Also the scopes a person may
// be granted at all (auth.signIn.scopeGrants, by group).
import { createHash } from 'node:crypto';
import type { SignInConfig } from '../config/sign-in.js';
import type { KeyValueStore } from '../session/key-value.js';
import type { Person } from './people.js';

/** Scopes by resource URI, and the OpenID scopes under the empty key. */
export type ScopesByResource = Readonly<Record<string, readonly string[]>>;

export class Consents {
  constructor(
    private readonly store: KeyValueStore,
    private readonly ttlSeconds: number,
  ) {}

  /** Whether `asked` is within what the person allowed this client before. */
  async covers(sub: string, clientId: string, asked: ScopesByResource): Promise<boolean> {
    const text = await this.store.get(consentKey(sub, clientId));
    if (text === undefined) return false;
    const allowed = JSON.parse(text) as ScopesByResource;
    return Object.entries(asked).every(([resource, scopes]) => scopes.every((scope) => allowed[resource]?.includes(scope) === true));
  }

  async remember(sub: string, clientId: string, allowed: ScopesByResource): Promise<void> {
    const key = consentKey(sub, clientId);
    const before = await this.store.get(key);
    const merged: Record<string, string[]> = before === undefined ? {} : (JSON.parse(before) as Record<string, string[]>);
    for (const [resource, scopes] of Object.entries(allowed)) merged[resource] = [...new Set([...(merged[resource] ?? []), ...scopes])];
    await this.store.set(key, JSON.stringify(merged), this.ttlSeconds);
  }
}

/** Whether the person may be granted `scope`: anyone, unless scopeGrants names groups for it. */
export function mayBeGranted(scope: string, person: Person, grants: SignInConfig['scopeGrants']): boolean {
  const grant = grants[scope];
  return grant === undefined || grant.groups.some((group) => person.groups.includes(group));
}

function consentKey(sub: string, clientId: string): string {
  const hash = (value: string) => createHash('sha256').update(value, 'utf8').digest('base64url');
  return `consent:${hash(sub)}:${hash(clientId)}`;
}
