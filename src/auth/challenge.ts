// The WWW-Authenticate challenges of RFC 6750 section 3, with the RFC 9728 `resource_metadata`
// parameter the MCP authorization spec asks for on every 401 and 403.

export interface ChallengeParams {
  readonly resourceMetadata: string;
  /** Space-separated scopes the client should ask for; omitted when empty. */
  readonly scope?: readonly string[];
  readonly error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope';
  readonly errorDescription?: string;
}

export function bearerChallenge({ resourceMetadata, scope, error, errorDescription }: ChallengeParams): string {
  const params: string[] = [];
  if (error) params.push(`error="${quoted(error)}"`);
  if (errorDescription) params.push(`error_description="${quoted(errorDescription)}"`);
  if (scope && scope.length > 0) params.push(`scope="${quoted(scope.join(' '))}"`);
  params.push(`resource_metadata="${quoted(resourceMetadata)}"`);
  return `Bearer ${params.join(', ')}`;
}

/** RFC 6750 limits these values to printable ASCII without `"` and `\`. */
function quoted(value: string): string {
  return value.replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/g, '');
}

/** The RFC 9728 metadata URL for a resource: the well-known path inserted between host and path. */
export function resourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return `${url.origin}/.well-known/oauth-protected-resource${path}`;
}
