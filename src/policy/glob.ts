// Policy patterns: `{server}/{name}` globs (picomatch syntax: `*`, `?`, `[...]`, `{a,b}`).
//
// The server part is matched against the server's config name and against its slug
// (config/server-names.ts): a server named "GitHub" is matched by `GitHub/*` and by `github/*`, one
// named "My Notes" by `My Notes/*` and `my-notes/*`. Either may be written; the slug always works,
// also for a name with "/" or glob characters in it. A pattern without wildcards still names one
// server: slugs fit [a-z0-9][a-z0-9-]{0,31}, a name that fits it is its own slug, and the schema
// refuses two enabled servers with one slug. The name part is matched against the upstream's own tool or prompt
// name, resource URI or URI template. The pattern is split at its first "/", so a `*` in the server
// part never reaches into the name.
//
// In the name part, `*` matches any run of characters, "/" included. Names are opaque strings here,
// not paths: a URI such as `file:///srv/a/b.txt` is one name, and `fs/file:///srv/*` is meant to
// cover everything below /srv, whichever of allow or deny it appears in. The contract's `*/*` ("every
// item of every server") only works this way, since resource URIs contain "/". `**` means the same
// as `*`. A literal `{`, `}`, `*`, `?` or `[` is written with a backslash (`\{id\}`).
import picomatch from 'picomatch';
import { serverSlug } from '../config/server-names.js';

/** Stands in for "/" while matching, so picomatch's path rules (`*` stops at "/") do not apply. */
const SLASH_STAND_IN = '\uE000';

export type ItemMatcher = (server: string, name: string) => boolean;

/** Throws (with the pattern in the message) when the pattern is not `{server}/{name}`. */
export function compilePattern(pattern: string): ItemMatcher {
  const slash = pattern.indexOf('/');
  if (slash <= 0 || slash === pattern.length - 1) {
    throw new Error(`policy pattern "${pattern}" is not {server}/{name} (e.g. "everything/echo", "memory/read_*", "*/*")`);
  }
  const options: picomatch.PicomatchOptions = { dot: true, nonegate: true };
  const server = picomatch(pattern.slice(0, slash), options);
  const name = picomatch(hideSlashes(pattern.slice(slash + 1)), options);
  const serverMatches = (serverName: string) => {
    if (server(serverName)) return true;
    const slug = serverSlug(serverName);
    return slug !== serverName && server(slug);
  };
  return (serverName, itemName) => serverMatches(serverName) && name(hideSlashes(itemName));
}

function hideSlashes(text: string): string {
  return text.includes('/') ? text.replaceAll('/', SLASH_STAND_IN) : text;
}
