// An upstream's WWW-Authenticate header (RFC 9110 section 11.6.1), read so that a 401 or 403 can
// tell the caller why and where the upstream's authorization is described (RFC 6750 section 3,
// RFC 9728 `resource_metadata`). The header is the upstream's words: anything malformed is
// skipped, never thrown, and a quirk seen in the wild (an unquoted URL) is read as meant.
//
//   challenge  = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
//   auth-param = token BWS "=" BWS ( token / quoted-string )
//   token68    = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
//
// Commas separate both challenges and parameters: `a=b, Basic realm="x"` is told apart by what
// follows a name (`=` for a parameter, a space, a comma or the end for a new scheme).

export interface AuthChallenge {
  /** As sent; schemes compare case-insensitively. */
  readonly scheme: string;
  /** By lowercase name, quoted-strings unescaped; the first of a repeated name counts. */
  readonly params: Readonly<Record<string, string>>;
  /** The token68 form some schemes use instead of parameters (Negotiate, Basic in a credential). */
  readonly token68?: string;
}

/** What a Bearer challenge says about a refusal (RFC 6750 section 3, RFC 9728 section 5.1). */
export interface BearerChallenge {
  readonly resourceMetadata?: string;
  readonly error?: string;
  readonly errorDescription?: string;
  readonly scope?: readonly string[];
}

const TCHAR = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]$/;
const TOKEN68 = /[A-Za-z0-9\-._~+/]+=*/y;
// An unquoted value: a token by the grammar, but servers write URLs unquoted, so anything up to
// the next separator is taken.
const BARE_VALUE = /[^\s,"]*/y;

export function parseAuthChallenges(header: string): AuthChallenge[] {
  const challenges: AuthChallenge[] = [];
  const length = header.length;
  let at = 0;

  const skipSpace = () => {
    while (at < length && (header[at] === ' ' || header[at] === '\t')) at += 1;
  };
  const token = () => {
    const start = at;
    while (at < length && TCHAR.test(header[at]!)) at += 1;
    return header.slice(start, at);
  };
  const sticky = (pattern: RegExp) => {
    pattern.lastIndex = at;
    const match = pattern.exec(header)?.[0] ?? '';
    at += match.length;
    return match;
  };
  // At the opening quote; an unterminated string is taken to the end.
  const quoted = () => {
    let value = '';
    at += 1;
    while (at < length) {
      const char = header[at++]!;
      if (char === '"') return value;
      value += char === '\\' && at < length ? header[at++]! : char;
    }
    return value;
  };
  // Past a malformed element to the next top-level comma (commas in a quoted-string do not count).
  const skipElement = () => {
    while (at < length && header[at] !== ',') {
      if (header[at] === '"') quoted();
      else at += 1;
    }
  };

  /** Parameters up to the end or to the next challenge, whose scheme is left unread. */
  const params = (into: Record<string, string>) => {
    for (;;) {
      skipSpace();
      if (at >= length) return;
      if (header[at] === ',') {
        at += 1;
        continue;
      }
      const start = at;
      const name = token();
      if (name === '') {
        skipElement();
        continue;
      }
      skipSpace();
      if (header[at] !== '=') {
        at = start;
        return;
      }
      at += 1;
      skipSpace();
      const value = header[at] === '"' ? quoted() : sticky(BARE_VALUE);
      const key = name.toLowerCase();
      if (!(key in into)) into[key] = value;
      skipSpace();
      if (at < length && header[at] !== ',') skipElement();
    }
  };

  while (at < length) {
    skipSpace();
    if (at >= length) break;
    if (header[at] === ',') {
      at += 1;
      continue;
    }
    const scheme = token();
    const afterScheme = at;
    skipSpace();
    // Not a scheme: nothing readable, or glued to what follows (`a=b` where a scheme was due).
    if (scheme === '' || (at === afterScheme && at < length && header[at] !== ',')) {
      skipElement();
      continue;
    }
    // A null prototype: a parameter named `__proto__` or `constructor` is just a parameter.
    const found: Record<string, string> = Object.create(null) as Record<string, string>;
    const start = at;
    const token68 = sticky(TOKEN68);
    const afterToken68 = at;
    skipSpace();
    if (token68 !== '' && (at >= length || header[at] === ',')) {
      challenges.push(Object.freeze({ scheme, params: Object.freeze(found), token68: header.slice(start, afterToken68) }));
      continue;
    }
    at = start;
    params(found);
    challenges.push(Object.freeze({ scheme, params: Object.freeze(found) }));
  }
  return challenges;
}

/**
 * The Bearer challenge of a WWW-Authenticate header, if it has one: the first that names its
 * resource metadata, else the first (a proxy in front may add a bare `Bearer realm=...` of its own).
 */
export function readBearerChallenge(header: string | null | undefined): BearerChallenge | undefined {
  if (!header) return undefined;
  const bearers = parseAuthChallenges(header).filter((challenge) => challenge.scheme.toLowerCase() === 'bearer');
  const chosen = bearers.find((challenge) => challenge.params.resource_metadata) ?? bearers[0];
  if (!chosen) return undefined;
  const { resource_metadata: resourceMetadata, error, error_description: errorDescription, scope } = chosen.params;
  const scopes = scope?.split(/\s+/).filter(Boolean) ?? [];
  return {
    ...(resourceMetadata && { resourceMetadata }),
    ...(error && { error }),
    ...(errorDescription && { errorDescription }),
    ...(scopes.length > 0 && { scope: scopes }),
  };
}
