// `server.allowedOrigins` entries, and whether an Origin header matches one. An entry is an origin
// (`https://app.example.com`, `http://localhost:3000`), optionally with `*` as the port (any port,
// as local dev servers move around: `http://localhost:*`) or `*.` before the host (any subdomain,
// not the bare domain: `https://*.example.com`); or `*` alone, any origin at all. Without the list,
// only loopback origins pass, as the MCP transport spec's DNS-rebinding advice suggests.

export type OriginMatcher = (origin: string) => boolean;

const PATTERN = /^(https?):\/\/(\*\.)?([^/:*?#@\s]+|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}|\*))?\/?$/;

/** Throws with a message that names the entry when it is not one of the forms above. */
export function compileOriginPattern(pattern: string): OriginMatcher {
  if (pattern === '*') return () => true;
  const match = PATTERN.exec(pattern.trim());
  if (!match) {
    throw new Error(
      `"${pattern}" is not an origin: write scheme://host[:port], with "*" as the port or "*." before the host for any, or "*" alone`,
    );
  }
  const [, scheme, anySubdomain, rawHost, port] = match as unknown as [string, string, string | undefined, string, string | undefined];
  const host = new URL(`${scheme}://${rawHost}`).hostname;
  const wantedPort = port === '*' ? '*' : port === undefined ? defaultPort(scheme) : String(Number(port));
  return (origin) => {
    const parsed = parseOrigin(origin);
    if (!parsed || parsed.scheme !== scheme) return false;
    if (wantedPort !== '*' && parsed.port !== wantedPort) return false;
    return anySubdomain ? parsed.host.endsWith(`.${host}`) : parsed.host === host;
  };
}

export function compileOriginPatterns(patterns: readonly string[] | undefined): OriginMatcher {
  if (patterns === undefined) return isLoopbackOrigin;
  const matchers = patterns.map(compileOriginPattern);
  return (origin) => matchers.some((matches) => matches(origin));
}

export function isLoopbackOrigin(origin: string): boolean {
  const parsed = parseOrigin(origin);
  return parsed !== undefined && isLoopbackHost(parsed.host);
}

/** localhost, 127.0.0.0/8 and ::1, as a URL hostname (IPv6 in brackets). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return host === 'localhost' || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host) || host === '[::1]' || host === '::1';
}

interface ParsedOrigin {
  readonly scheme: string;
  readonly host: string;
  readonly port: string;
}

/** An Origin header's scheme, hostname and port (the default one spelled out); "null" and junk: undefined. */
function parseOrigin(origin: string): ParsedOrigin | undefined {
  if (origin.length > 2048) return undefined;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return undefined;
  }
  const scheme = url.protocol.slice(0, -1);
  if (scheme !== 'http' && scheme !== 'https') return undefined;
  return { scheme, host: url.hostname, port: url.port === '' ? defaultPort(scheme) : url.port };
}

function defaultPort(scheme: string): string {
  return scheme === 'https' ? '443' : '80';
}
