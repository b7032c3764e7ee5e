// Which request headers a CORS preflight on an MCP path allows. A browser asks before it sends any
// header that is not CORS-safelisted, and refuses to send the request when one it needs is missing
// from the answer. Clients of 2025 send the session and protocol headers; clients of 2026-07-28
// also mirror the body into Mcp-Method and Mcp-Name, and a tool's `x-mcp-header` parameters into
// `Mcp-Param-{Name}` headers (SEP-2243), whose names only the tool's declaration knows.
//
// Those are answered by reflecting what the preflight asks for (Access-Control-Request-Headers),
// when it is an `Mcp-Param-*` name, rather than by listing the catalogue's: the preflight comes
// before authentication, so a list from the catalogue would tell anyone which parameters the tools
// mirror, and could only be every tool's (whose tools a principal sees is not known yet); HTTP
// knows nothing of tools (design.md, "Layers"); and a tool added later works without waiting for a
// cached answer. Reflecting a header name grants nothing: the request it allows is checked as any
// other, and a mirrored value that does not match the body is refused (-32020).
const FIXED = ['Authorization', 'Content-Type', 'Accept', 'Mcp-Session-Id', 'MCP-Protocol-Version', 'Last-Event-ID', 'Mcp-Method', 'Mcp-Name'].join(', ');
/** `Mcp-Param-` and an RFC 9110 token, which is what an `x-mcp-header` value must be. */
const MIRRORED_PARAM = /^mcp-param-[!#$%&'*+.^_`|~0-9a-z-]+$/i;

/** The Access-Control-Allow-Headers of a preflight that asked for `requested` (its Access-Control-Request-Headers). */
export function allowedRequestHeaders(requested: string | undefined): string {
  if (requested === undefined) return FIXED;
  const mirrored = new Set<string>();
  for (const part of requested.split(',')) {
    const name = part.trim();
    if (MIRRORED_PARAM.test(name)) mirrored.add(name);
  }
  return mirrored.size === 0 ? FIXED : `${FIXED}, ${[...mirrored].join(', ')}`;
}
