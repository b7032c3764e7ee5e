// Whether a rule's `when` holds for a principal (contract, "Names"): `sub` equal; each listed scope
// present; each claim equal to the value or, for an array claim, containing it, where a list of
// values means any of them. No conditions match everyone, the anonymous caller (auth off) included;
// any condition fails for the anonymous caller, who has no sub, scopes or claims.
import type { Principal } from '../auth/principal.js';
import type { PolicyRule } from '../config/schema.js';

type Conditions = PolicyRule['when'];
type ClaimValue = string | number | boolean;

export function conditionsHold(when: Conditions, principal: Principal | undefined): boolean {
  const { sub, scopes, claims } = when;
  if (sub === undefined && scopes === undefined && claims === undefined) return true;
  if (!principal) return false;
  if (sub !== undefined && principal.sub !== sub) return false;
  if (scopes !== undefined && !scopes.every((scope) => principal.scopes.includes(scope))) return false;
  if (claims !== undefined) {
    for (const [name, wanted] of Object.entries(claims)) {
      if (!claimMatches(claimValue(principal.claims, name), wanted)) return false;
    }
  }
  return true;
}

/**
 * A top-level claim by its name; failing that, a dotted name walks into nested objects, so that
 * Keycloak's `realm_access.roles` can be named. A namespaced claim such as Auth0's
 * `https://example.com/roles` is a top-level name and found first.
 */
function claimValue(claims: Readonly<Record<string, unknown>>, name: string): unknown {
  if (Object.hasOwn(claims, name)) return claims[name];
  if (!name.includes('.')) return undefined;
  let node: unknown = claims;
  for (const key of name.split('.')) {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function claimMatches(actual: unknown, wanted: ClaimValue | readonly ClaimValue[]): boolean {
  const candidates: readonly ClaimValue[] = Array.isArray(wanted) ? wanted : [wanted as ClaimValue];
  const values = Array.isArray(actual) ? actual : [actual];
  return values.some((value) => candidates.some((candidate) => sameScalar(value, candidate)));
}

/**
 * Scalars compare by their text, so `tier: 2` in the file matches a claim `"2"` and the other way
 * round (a value from `${VAR}` is always a string). Objects and arrays never match.
 */
function sameScalar(value: unknown, candidate: ClaimValue): boolean {
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return false;
  return String(value) === String(candidate);
}
