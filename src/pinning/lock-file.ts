// The lock file: per server, per tool, the digest and the full definition of what was reviewed.
//
// YAML, because it is reviewed as a diff before it is committed: a description (the text a model
// reads, and where a poisoned tool hides its instructions) is written as a literal block, one line
// of the file per line of text, so a changed sentence shows as that line in `git diff`, where JSON
// would show the whole description as one changed line. Never folded, never aliased, keys in a
// fixed order (servers and tools sorted, definition fields in PINNED_FIELDS order, schema keys
// sorted), so the same upstreams always give the same bytes. A string with characters a reviewer
// cannot see (visible.ts) is written double-quoted with those spelled as escapes (`\u200B`). The
// digest is of the canonical JSON, not of the YAML, so the format can change without voiding a pin.
import { readFile } from 'node:fs/promises';
import { parseDocument, stringify, type Scalar, type ScalarTag } from 'yaml';
import { ConfigError, type ConfigProblem } from '../config/errors.js';
import { formatKeyPath, isPlainObject, type KeyPath } from '../config/key-path.js';
import type { JsonObject } from '../protocol/json.js';
import { DIGEST_PATTERN, definitionDigest, liveDefinition, PINNED_FIELDS, type ToolDefinition } from './definition.js';
import { hasHidden, yamlEscaped } from './visible.js';

export const LOCK_FILE_VERSION = 1;

export interface Pin {
  readonly digest: string;
  readonly definition: ToolDefinition;
}

/** One server's pins, by the upstream's own tool name. */
export type ServerPins = ReadonlyMap<string, Pin>;

export interface LockFile {
  /** By server config name. */
  readonly servers: ReadonlyMap<string, ServerPins>;
}

const HEADER = `Pinned tool definitions, written by \`switchboard lock\`. Review a change to this file as you
would review code, then commit it with the config: \`switchboard lock --check\` tells whether the
upstreams still match it, and the gateway withholds tools that do not under \`pinning: enforce\`.`;

/** Pins of the tools each server lists now; a name listed twice keeps its first entry, as the catalogue does. */
export function lockFromLists(lists: Iterable<readonly [server: string, tools: readonly JsonObject[]]>): LockFile {
  const servers = new Map<string, ServerPins>();
  for (const [server, tools] of lists) {
    const pins = new Map<string, Pin>();
    for (const tool of tools) {
      const { definition, digest } = liveDefinition(tool);
      if (!pins.has(definition.name)) pins.set(definition.name, { digest, definition });
    }
    servers.set(server, pins);
  }
  return { servers };
}

export function renderLockFile(lock: LockFile): string {
  const servers = new Map<unknown, unknown>();
  for (const server of sortedKeys(lock.servers)) {
    const pins = lock.servers.get(server)!;
    const tools = new Map<unknown, unknown>();
    for (const tool of sortedKeys(pins)) {
      const { digest, definition } = pins.get(tool)!;
      const shown = new Map<string, unknown>();
      for (const field of PINNED_FIELDS) if (definition[field] !== undefined) shown.set(field, sortedDeep(definition[field]));
      tools.set(escapedIfHidden(tool), new Map<string, unknown>([['digest', digest], ['definition', shown]]));
    }
    servers.set(escapedIfHidden(server), tools);
  }
  const body = stringify(new Map<string, unknown>([['version', LOCK_FILE_VERSION], ['servers', servers]]), {
    // One line of text per line of the file: no folding, and multi-line strings as literal blocks.
    lineWidth: 0,
    blockQuote: 'literal',
    // Two tools may share a schema object; each is written out in full, never as an anchor.
    aliasDuplicateObjects: false,
    customTags: [escapedString],
  });
  return `${HEADER.split('\n').map((line) => `# ${line}`).join('\n')}\n${body}`;
}

/** Reads and checks a lock file; throws ConfigError naming the file and each problem's key path. */
export async function readLockFile(file: string): Promise<LockFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError([{ path: '', message: `cannot read lock file: ${reason} (\`switchboard lock\` writes it)` }], file);
  }
  try {
    return parseLockFile(text);
  } catch (error) {
    throw error instanceof ConfigError ? error.withSource(file) : error;
  }
}

/**
 * The lock file's text as pins. Refused: a version this gateway does not know, a definition whose
 * name is not its key, a field that is not pinned, and a digest that does not match its definition
 * (a hand edit: the file would say one thing and enforce another).
 */
export function parseLockFile(text: string): LockFile {
  const document = parseDocument(text, { prettyErrors: true });
  const [syntaxError] = document.errors;
  if (syntaxError !== undefined) {
    throw new ConfigError([{ path: '', message: `YAML syntax error: ${(syntaxError.message.split('\n')[0] ?? '').replace(/:$/, '')}` }]);
  }
  const root: unknown = document.toJS();
  const problems: ConfigProblem[] = [];
  const problem = (path: KeyPath, message: string) => problems.push({ path: formatKeyPath(path), message });
  if (!isPlainObject(root)) throw new ConfigError([{ path: '', message: 'expected a mapping with "version" and "servers"' }]);
  if (root.version !== LOCK_FILE_VERSION) problem(['version'], `expected ${LOCK_FILE_VERSION}, the lock file version this gateway writes`);
  for (const key of Object.keys(root)) if (key !== 'version' && key !== 'servers') problem([key], 'unknown key');
  const servers = new Map<string, ServerPins>();
  if (!isPlainObject(root.servers)) problem(['servers'], 'expected a mapping of server names to their tools');
  else {
    for (const [server, tools] of Object.entries(root.servers)) {
      const pins = new Map<string, Pin>();
      servers.set(server, pins);
      // A server with no tools is written as an empty mapping; YAML may also read it as null.
      if (tools === null) continue;
      if (!isPlainObject(tools)) {
        problem(['servers', server], 'expected a mapping of tool names to pins');
        continue;
      }
      for (const [tool, pin] of Object.entries(tools)) {
        const parsed = parsePin(pin, tool, ['servers', server, tool], problem);
        if (parsed) pins.set(tool, parsed);
      }
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return { servers };
}

function parsePin(pin: unknown, tool: string, path: KeyPath, problem: (path: KeyPath, message: string) => void): Pin | undefined {
  if (!isPlainObject(pin)) {
    problem(path, 'expected a mapping with "digest" and "definition"');
    return undefined;
  }
  for (const key of Object.keys(pin)) if (key !== 'digest' && key !== 'definition') problem([...path, key], 'unknown key');
  const { digest, definition } = pin;
  let valid = true;
  if (typeof digest !== 'string' || !DIGEST_PATTERN.test(digest)) {
    problem([...path, 'digest'], 'expected "sha256:" and 64 hex digits');
    valid = false;
  }
  if (!isPlainObject(definition)) {
    problem([...path, 'definition'], 'expected the tool definition (name, title, description, inputSchema, outputSchema, annotations)');
    return undefined;
  }
  for (const key of Object.keys(definition)) {
    if (!(PINNED_FIELDS as readonly string[]).includes(key)) {
      problem([...path, 'definition', key], `not a pinned field (${PINNED_FIELDS.join(', ')})`);
      valid = false;
    }
  }
  if (definition.name !== tool) {
    problem([...path, 'definition', 'name'], `must be the tool's name, ${JSON.stringify(tool)}`);
    valid = false;
  }
  if (!valid) return undefined;
  const checked = definition as ToolDefinition;
  if (definitionDigest(checked) !== digest) {
    problem([...path, 'digest'], 'does not match the definition (edited by hand?); run `switchboard lock` and review the diff');
    return undefined;
  }
  return { digest: digest as string, definition: checked };
}

function sortedKeys(map: ReadonlyMap<string, unknown>): string[] {
  return [...map.keys()].sort();
}

/** Objects as Maps with sorted keys (a key "__proto__" stays a key), arrays in their order. */
function sortedDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedDeep);
  if (isPlainObject(value)) return new Map(Object.keys(value).sort().map((key) => [escapedIfHidden(key), sortedDeep(value[key])]));
  return escapedIfHidden(value);
}

/** A string to write with its hidden characters as escapes; it reads back as the same string. */
class EscapedString {
  constructor(readonly text: string) {}
}

function escapedIfHidden(value: unknown): unknown {
  return typeof value === 'string' && hasHidden(value) ? new EscapedString(value) : value;
}

/** The YAML string type, for EscapedString: written as yamlEscaped made it, so no tag is needed. */
const escapedString: ScalarTag = {
  identify: (value: unknown) => value instanceof EscapedString,
  tag: 'tag:yaml.org,2002:str',
  default: true,
  // Only for writing: the file is read with the standard tags, which take the escapes as the characters.
  resolve: (source: string) => source,
  stringify: (item: Scalar) => yamlEscaped((item.value as EscapedString).text),
};
