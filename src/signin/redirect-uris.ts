// Redirect URIs as the MCP authorization spec and RFC 8252 allow them: HTTPS, or http on a loopback
// address with any port (a native client listens on a port it picks each time).
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

export function isLoopbackRedirect(uri: string): boolean {
  const url = URL.parse(uri);
  return url !== null && url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/**
 * Why a redirect URI may not be registered, or undefined when it may. `schemes`: private-use URI
 * schemes the operator allows for native apps (auth.signIn.registration.allowedSchemes).
 */
export function redirectUriProblem(uri: string, schemes: ReadonlySet<string>): string | undefined {
  const url = URL.parse(uri);
  if (url === null) return `${uri} is not a URL`;
  if (url.hash !== '') return `${uri} has a fragment`;
  if (url.username !== '' || url.password !== '') return `${uri} has user information`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') return LOOPBACK_HOSTS.has(url.hostname) ? undefined : `${uri} uses http on a host that is not loopback (127.0.0.1, [::1] or localhost)`;
  if (schemes.has(url.protocol.slice(0, -1))) return undefined;
  return `${uri} uses the scheme ${url.protocol.slice(0, -1)}, which is not allowed here (https, http on loopback${schemes.size > 0 ? `, ${[...schemes].join(', ')}` : ''})`;
}

/**
 * Why a client ID metadata document may not name this redirect URI, or undefined when it may. A
 * document is trusted for the host it is served from: its redirect URIs must be https there (or http
 * on loopback, for native clients). Otherwise any site could publish a document naming a well-known
 * client and a redirect URI of its own, and the codes for it would travel in the clear.
 */
export function metadataRedirectProblem(clientId: string, uri: string): string | undefined {
  const problem = redirectUriProblem(uri, NO_SCHEMES);
  if (problem !== undefined) return problem;
  if (isLoopbackRedirect(uri)) return undefined;
  const host = new URL(clientId).host;
  return new URL(uri).host === host ? undefined : `${uri} is not on ${host}, the host of its metadata document`;
}

const NO_SCHEMES: ReadonlySet<string> = new Set();
