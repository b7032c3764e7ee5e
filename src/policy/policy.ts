// Allow/deny decisions, as pure functions of the policy config, the principal and the item
// (contract, "Names"): the allows of all matching rules add up; a deny of any matching rule beats
// them; `default` decides what no matching rule names, also when no rule matches.
import type { Principal } from '../auth/principal.js';
import type { PolicyConfig } from '../config/schema.js';
import type { AccessPolicy, PrincipalAccess } from '../gateway/catalogue/access.js';
import { conditionsHold } from './conditions.js';
import { compilePattern, type ItemMatcher } from './glob.js';

export interface CompiledRule {
  readonly when: PolicyConfig['rules'][number]['when'];
  readonly allow: readonly ItemMatcher[];
  readonly deny: readonly ItemMatcher[];
}

export interface CompiledPolicy {
  readonly default: 'allow' | 'deny';
  readonly rules: readonly CompiledRule[];
}

/** Compiles every pattern once; throws on a pattern that is not `{server}/{name}`. */
export function compilePolicy(config: PolicyConfig): CompiledPolicy {
  return {
    default: config.default,
    rules: config.rules.map((rule) => ({
      when: rule.when,
      allow: rule.allow.map(compilePattern),
      deny: rule.deny.map(compilePattern),
    })),
  };
}

/** Indices of the rules whose `when` holds for the principal (undefined: the anonymous caller). */
export function matchingRules(policy: CompiledPolicy, principal: Principal | undefined): number[] {
  const matched: number[] = [];
  policy.rules.forEach((rule, index) => {
    if (conditionsHold(rule.when, principal)) matched.push(index);
  });
  return matched;
}

export function decide(policy: CompiledPolicy, matched: readonly number[], server: string, name: string): 'allow' | 'deny' {
  let allowed = false;
  for (const index of matched) {
    const rule = policy.rules[index];
    if (!rule) continue;
    if (rule.deny.some((matches) => matches(server, name))) return 'deny';
    allowed ||= rule.allow.some((matches) => matches(server, name));
  }
  return allowed ? 'allow' : policy.default;
}

/**
 * The principal's decisions. Its key is the list of matching rules: two principals that match the
 * same rules get the same decisions, so views filtered for one serve the other.
 */
export function accessFor(policy: CompiledPolicy, principal: Principal | undefined): PrincipalAccess {
  const matched = matchingRules(policy, principal);
  return {
    key: matched.join(','),
    allows: (server, name) => decide(policy, matched, server, name) === 'allow',
  };
}

/** The decisions a key stands for: the same as for any principal that got that key. */
export function accessForKey(policy: CompiledPolicy, key: string): PrincipalAccess {
  const matched = key === '' ? [] : key.split(',').map(Number).filter((index) => Number.isInteger(index) && index >= 0);
  return { key, allows: (server, name) => decide(policy, matched, server, name) === 'allow' };
}

/** The policy in the shape the gateway asks it questions. */
export function policyAccess(config: PolicyConfig): AccessPolicy {
  const policy = compilePolicy(config);
  return { accessFor: (principal) => accessFor(policy, principal), accessForKey: (key) => accessForKey(policy, key) };
}
