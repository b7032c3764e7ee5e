// Who signed in: the provider's claims mapped (auth.signIn.claims) to the few Switchboard's tokens
// carry, kept per person so that a refresh weeks later issues a token with the same claims. Updated
// at each sign-in, so a person's new groups arrive with their next sign-in, not their next refresh.
import { createHash } from 'node:crypto';
import type { SignInConfig } from '../config/sign-in.js';
import type { TokenSealer } from '../credentials/token-sealing.js';
import type { KeyValueStore } from '../session/key-value.js';
import { valueAt } from './team-provider.js';

export interface Person {
  /** The token's `sub`: from the claim auth.signIn.claims.sub names. */
  readonly sub: string;
  readonly email?: string;
  readonly name?: string;
  readonly groups: readonly string[];
}

export class MissingSubjectError extends Error {
  constructor(claim: string) {
    super(`the identity provider's answer has no "${claim}" claim to name the person by (auth.signIn.claims.sub)`);
    this.name = 'MissingSubjectError';
  }
}

export function personFromClaims(claims: Readonly<Record<string, unknown>>, mapping: SignInConfig['claims']): Person {
  const sub = valueAt(claims, mapping.sub);
  if ((typeof sub !== 'string' && typeof sub !== 'number') || `${sub}` === '') throw new MissingSubjectError(mapping.sub);
  const email = valueAt(claims, mapping.email);
  const name = valueAt(claims, mapping.name);
  return {
    sub: `${sub}`,
    ...(typeof email === 'string' && { email }),
    ...(typeof name === 'string' && { name }),
    groups: groupsOf(valueAt(claims, mapping.groups)),
  };
}

/** Groups as providers send them: an array of names, or one name, or a space- or comma-separated string. */
function groupsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((group): group is string => typeof group === 'string' && group !== '');
  if (typeof value === 'string') return value.split(/[\s,]+/).filter((group) => group !== '');
  return [];
}

export class People {
  constructor(
    private readonly store: KeyValueStore,
    private readonly sealer: TokenSealer,
    /** As long as a refresh token family may live: the person's claims must outlive it. */
    private readonly ttlSeconds: number,
  ) {}

  async save(person: Person): Promise<void> {
    const key = personKey(person.sub);
    await this.store.set(key, this.sealer.seal(JSON.stringify(person), key), this.ttlSeconds);
  }

  async find(sub: string): Promise<Person | undefined> {
    const key = personKey(sub);
    const sealed = await this.store.get(key);
    const plain = sealed === undefined ? undefined : this.sealer.open(sealed, key);
    return plain === undefined ? undefined : (JSON.parse(plain) as Person);
  }
}

function personKey(sub: string): string {
  return `person:${createHash('sha256').update(sub, 'utf8').digest('base64url')}`;
}
