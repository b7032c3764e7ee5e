// Naming: how upstream tool/prompt names and resource URIs become the names a client sees, and
// back. Pure functions, so the rules can be read and tested without a running gateway.
import { createHash } from 'node:crypto';
import { serverSlug } from '../../config/server-names.js';

/** The strictest rule common LLM APIs apply to function names; every exposed tool name fits it. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const HASH_CHARS = 8;

export type NameRule = 'tool' | 'prompt';

/** How names are made: config `namespace`. */
export interface Naming {
  readonly separator: string;
  /**
   * The longest name the gateway makes (namespace.maxNameLength), in characters: a longer one is
   * rewritten. Names the config gives (`exposedAs`) are exposed as written.
   */
  readonly maxNameLength: number;
}

export interface NamingInput {
  readonly server: string;
  /** The server's prefix ("" exposes names unprefixed). */
  readonly prefix: string;
  /** The upstream's own name. */
  readonly name: string;
  /** The name the config gives it (a tool override's `name`): exposed exactly so, unless taken. */
  readonly exposedAs?: string | undefined;
}

/**
 * Exposed names for one kind of item across all servers, in the order given (config order, then
 * each upstream's order), so the same inputs always give the same names.
 *
 * A name that is already valid keeps `{prefix}{separator}{name}`; names are handed out in two
 * passes so that a rewritten name (invalid characters, longer than `maxNameLength`, or a duplicate)
 * can never take a natural one, whatever the order. A rewritten name is the natural one with
 * invalid characters replaced by "_", cut to fit, and a hash of (server, name) appended, so it
 * stays unique and stable across restarts and replicas: it depends on the config and the upstream
 * lists alone. Names the config gives (`exposedAs`) go before both: the config asked for them by
 * name, and it cannot give one name twice (config/tool-renames.ts).
 */
export function assignExposedNames(items: readonly NamingInput[], { separator, maxNameLength }: Naming, rule: NameRule): string[] {
  const natural = items.map((item) => (item.prefix === '' ? item.name : `${item.prefix}${separator}${item.name}`));
  const fits = (name: string) => isValidName(name, rule) && characters(name) <= maxNameLength;
  const exposed = new Array<string | undefined>(items.length);
  const taken = new Set<string>();

  items.forEach(({ exposedAs }, index) => {
    if (exposedAs !== undefined && isValidName(exposedAs, rule) && !taken.has(exposedAs)) {
      exposed[index] = exposedAs;
      taken.add(exposedAs);
    }
  });
  natural.forEach((name, index) => {
    if (exposed[index] === undefined && fits(name) && !taken.has(name)) {
      exposed[index] = name;
      taken.add(name);
    }
  });
  items.forEach((item, index) => {
    if (exposed[index] !== undefined) return;
    const name = rewrittenName(item, natural[index] ?? '', rule, maxNameLength, taken);
    exposed[index] = name;
    taken.add(name);
  });
  return exposed as string[];
}

function isValidName(name: string, rule: NameRule): boolean {
  return rule === 'tool' ? TOOL_NAME_PATTERN.test(name) : name.length > 0;
}

/** A prompt's name may be any text: counted in code points, so a cut never splits a character. */
function characters(name: string): number {
  let count = 0;
  for (const _ of name) count += 1;
  return count;
}

function rewrittenName(item: NamingInput, natural: string, rule: NameRule, maxNameLength: number, taken: ReadonlySet<string>): string {
  const digest = createHash('sha256').update(`${item.server}\u0000${item.name}`).digest('hex');
  const cleaned = rule === 'tool' ? natural.replace(/[^A-Za-z0-9_-]/g, '_') : natural;
  // On a clash (two names cut to the same start whose hashes begin alike: astronomically rare), a
  // longer slice of the digest, with the base cut shorter to make room; the names are handed out
  // in the same order on every replica, so the same one gets the longer slice everywhere.
  for (let hashLength = HASH_CHARS; hashLength < maxNameLength; hashLength += 4) {
    const suffix = `_${digest.slice(0, hashLength)}`;
    const candidate = `${[...cleaned].slice(0, maxNameLength - suffix.length).join('')}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
  throw new Error(`cannot find a unique name for ${item.server}/${item.name}`);
}

// ---- Resource URIs ------------------------------------------------------------------------------
//
// A prefixed server's URIs are exposed with the server's slug (config/server-names.ts) added to the
// URI scheme: `test://static/1` from server "everything" becomes `test+everything://static/1`, and
// from server "My Notes" `test+my-notes://static/1`. The rest of the URI is kept byte for byte, so a
// template keeps working: `test+everything://static/{id}` expands to exactly the exposed form of
// what the upstream's own template expands to. The result is still a valid URI (a scheme may
// contain "+" and "-"; slugs are [a-z0-9-], unlike the names users write). A URI or template
// without a plain scheme (rare; the spec asks for URIs) is carried whole behind
// `switchboard+{slug}:`.
//
// `ui://` URIs (MCP Apps) are the exception: hosts refuse an app resource whose URI does not start
// with `ui://`, so the slug becomes the authority and the upstream's own authority the first path
// segment: `ui://get-time/mcp-app.html` from server "basic" is `ui://basic/get-time/mcp-app.html`
// (docs/decisions/0018-ui-uris-keep-their-scheme.md).

const SCHEME_PREFIX = /^([A-Za-z][A-Za-z0-9+.-]*):/;
const EXPOSED_PREFIX = /^([A-Za-z][A-Za-z0-9+.-]*)\+([a-z0-9][a-z0-9-]{0,31}):/;
const OPAQUE_SCHEME = 'switchboard';
/** MCP Apps' scheme, kept as it is: the slug goes in the authority. */
export const UI_SCHEME_PREFIX = 'ui://';
const EXPOSED_UI = /^ui:\/\/([a-z0-9][a-z0-9-]{0,31})\//;

/** The exposed form of a URI of `server` (its config name). */
export function exposeUri(server: string, uri: string): string {
  const slug = serverSlug(server);
  if (uri.startsWith(UI_SCHEME_PREFIX)) return `${UI_SCHEME_PREFIX}${slug}/${uri.slice(UI_SCHEME_PREFIX.length)}`;
  const match = SCHEME_PREFIX.exec(uri);
  if (!match || match[1] === OPAQUE_SCHEME) return `${OPAQUE_SCHEME}+${slug}:${uri}`;
  return `${match[1]}+${slug}:${uri.slice(match[0].length)}`;
}

/** Splits an exposed URI into the server's slug and the upstream URI; undefined when it has no server tag. */
export function parseExposedUri(exposed: string): { slug: string; uri: string } | undefined {
  const ui = EXPOSED_UI.exec(exposed);
  if (ui) return { slug: ui[1] as string, uri: `${UI_SCHEME_PREFIX}${exposed.slice(ui[0].length)}` };
  const match = EXPOSED_PREFIX.exec(exposed);
  if (!match) return undefined;
  const [whole, scheme, slug] = match as unknown as [string, string, string];
  const rest = exposed.slice(whole.length);
  return { slug, uri: scheme === OPAQUE_SCHEME ? rest : `${scheme}:${rest}` };
}
