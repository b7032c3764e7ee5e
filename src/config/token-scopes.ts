// Every scope a token for an MCP endpoint may carry, as the config names them: the required ones
// (auth's and the endpoint's), the policy's `when.scopes`, the admin scope, and in sign-in mode
// `auth.signIn.scopes` and the keys of `scopeGrants`. What the protected resource metadata lists,
// what sign-in mode's challenges ask for and its authorization server grants.
import type { Config } from './schema.js';

export function tokenScopes(config: Config, endpoint?: string): string[] {
  const auth = config.auth;
  if (auth === undefined) return [];
  const policy = config.policy?.rules.flatMap((rule) => rule.when.scopes ?? []) ?? [];
  const endpointScopes = endpoint === undefined ? [] : (config.endpoints[endpoint]?.requiredScopes ?? []);
  const signIn = auth.signIn === undefined ? [] : [...auth.signIn.scopes, ...Object.keys(auth.signIn.scopeGrants), config.admin.scope];
  return [...new Set([...auth.requiredScopes, ...endpointScopes, ...policy, ...signIn])];
}
