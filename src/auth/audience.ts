// RFC 8707 audience check. The MCP authorization spec asks servers to accept uppercase scheme and
// host in the canonical URI, and the form with or without a trailing slash is the same resource, so
// URLs compare in a normal form; any other audience value (an `api://...` name) compares exactly.

export function audienceMatches(claim: unknown, expected: readonly string[]): boolean {
  const audiences = typeof claim === 'string' ? [claim] : Array.isArray(claim) ? claim : [];
  const wanted = new Set(expected.map(normalAudience));
  return audiences.some((audience) => typeof audience === 'string' && wanted.has(normalAudience(audience)));
}

export function normalAudience(audience: string): string {
  if (!/^https?:\/\//i.test(audience)) return audience;
  try {
    const url = new URL(audience);
    const path = url.pathname.endsWith('/') ? url.pathname.slice(0, -1) : url.pathname;
    return `${url.protocol}//${url.host}${path}${url.search}`;
  } catch {
    return audience;
  }
}
