// docs/reference/configuration.md, rendered from the config's JSON Schema (json-schema.ts),
// which is rendered from the zod schema: every key with its path, type, allowed values, default
// and description, one heading (and so one anchor) per key, grouped by top-level section.
import { generatedNotice } from '../lib/generated-files.js';
import { headingSlug } from '../lib/markdown.js';
import { ENV_REFERENCE, type JsonSchema } from './json-schema.js';

/** How a map's keys are shown in paths (`mcpServers.<server>.url`), by the map's own key. */
const KEY_LABELS: Readonly<Record<string, string>> = {
  mcpServers: '<server>',
  servers: '<server>',
  endpoints: '<endpoint>',
  tools: '<tool>',
  headers: '<header>',
  env: '<variable>',
  claims: '<claim>',
};

interface Entry {
  readonly path: string;
  readonly schema: JsonSchema;
  /** Which kinds of a union the key belongs to, when not all (`command` or `url` servers). */
  readonly only?: string;
}

export function configReference(schema: JsonSchema): string {
  const sections = Object.entries(properties(schema));
  const lines = [
    generatedNotice('scripts/docs/config.ts', ['src/config/schema.ts and the files it composes (the `.describe()` of each key)']),
    '',
    '# Configuration reference',
    '',
    'Every key of `switchboard.yaml` (or `.json`), generated from the schema the gateway validates',
    'with. Run `switchboard validate --config switchboard.yaml` to check a file: it lists every problem,',
    'each with its key path.',
    '',
    '- Any string value may hold `${VAR}` or `${VAR:-default}`, replaced from the environment when the',
    '  file is read (`$${` is a literal `${`); a variable `VAR_FILE` naming a file stands in for an',
    '  unset `VAR`. Numbers and booleans may be written as strings (`port: "${PORT:-8080}"`).',
    '- A file holding only a Claude Desktop style `{"mcpServers": {...}}` is a valid config, and the',
    '  `type` and `disabled` keys other clients write in a server are understood.',
    '- Editors that read JSON Schema complete and check the file with',
    '  [config/switchboard.schema.json](../../config/switchboard.schema.json): with the YAML language',
    '  server (VS Code\'s YAML extension, for one), make this the first line of the file:',
    '  `# yaml-language-server: $schema=<path or URL of switchboard.schema.json>`.',
    '',
    '## Sections',
    '',
    ...sections.map(([name, section]) => `- [\`${name}\`](#${headingSlug(name)}): ${firstSentence(String(section.description ?? ''))}`),
  ];
  for (const [name, section] of sections) {
    lines.push('', `## ${name}`, '', ...keyBody(section));
    for (const entry of entriesUnder(name, section)) lines.push('', `### \`${entry.path}\``, '', ...keyBody(entry.schema, entry.only));
  }
  return `${lines.join('\n')}\n`;
}

function firstSentence(text: string): string {
  const end = text.search(/[.:](\s|$)/);
  return end === -1 ? text : `${text.slice(0, end)}.`;
}

function keyBody(schema: JsonSchema, only?: string): string[] {
  const facts = [`**Type** ${typeName(schema)}`];
  const allowed = allowedValues(schema);
  if (allowed !== undefined) facts.push(`**Allowed** ${allowed}`);
  if (schema.default !== undefined) facts.push(`**Default** \`${JSON.stringify(schema.default)}\``);
  if (isRequired(schema)) facts.push('**Required**');
  if (only !== undefined) facts.push(`**Only** ${only}`);
  const body = [facts.join(' · ')];
  if (typeof schema.description === 'string') body.push('', schema.description);
  return body;
}

// Which keys are required is a fact of the parent; entriesUnder marks them here.
const REQUIRED = Symbol('required');
function isRequired(schema: JsonSchema): boolean {
  return (schema as { [REQUIRED]?: boolean })[REQUIRED] === true;
}

function entriesUnder(path: string, schema: JsonSchema): Entry[] {
  const entries: Entry[] = [];
  const objects = branches(schema).filter((branch) => branch.type === 'object');
  const array = branches(schema).find((branch) => branch.type === 'array');
  if (array !== undefined && isSchema(array.items)) return entriesUnder(`${path}[]`, array.items);
  const keyed = new Map<string, { schema: JsonSchema; kinds: string[] }>();
  for (const object of objects) {
    const required = new Set((object.required as string[] | undefined) ?? []);
    const kind = objects.length > 1 ? kindOf(object) : '';
    // In a union, a key is required of the kind that has it: its "Only" says so.
    if (objects.length > 1) required.clear();
    for (const [key, child] of Object.entries(properties(object))) {
      const seen = keyed.get(key);
      if (seen !== undefined) {
        seen.kinds.push(kind);
        // The same key with other values in another kind (`type`): either, as the description says.
        if (JSON.stringify(seen.schema) !== JSON.stringify(child)) seen.schema = { ...seen.schema, anyOf: [...branches(seen.schema), ...branches(child)] };
        continue;
      }
      keyed.set(key, { schema: required.has(key) ? { ...child, [REQUIRED]: true } : child, kinds: [kind] });
    }
    const mapped = object.additionalProperties;
    // A map of plain values (`env`, `headers`) is said by its type; a map of objects gets its entries.
    if (isSchema(mapped) && branches(mapped).some((branch) => branch.type === 'object') && Object.keys(properties(object)).length === 0) {
      const label = KEY_LABELS[path.split('.').at(-1) ?? ''] ?? '<key>';
      keyed.set(label, { schema: mapped, kinds: [kind] });
    }
  }
  for (const [key, { schema: child, kinds }] of keyed) {
    const childPath = `${path}.${key}`;
    const only = objects.length > 1 && kinds.length < objects.length ? `for servers ${kinds.join(', ')}` : undefined;
    entries.push({ path: childPath, schema: child, ...(only !== undefined && { only }) }, ...entriesUnder(childPath, child));
  }
  return entries;
}

/** A union's object kinds are told apart by the key each one requires (`command`, `url`). */
function kindOf(object: JsonSchema): string {
  const required = (object.required as string[] | undefined) ?? [];
  return required.length === 0 ? 'the object form' : `with ${required.map((key) => `\`${key}\``).join(', ')}`;
}

/** The alternatives a value may take, leaving out the `${VAR}` and number-as-string ones. */
function branches(schema: JsonSchema): JsonSchema[] {
  if (!Array.isArray(schema.anyOf)) return [schema];
  const all = (schema.anyOf as JsonSchema[]).flatMap(branches);
  const real = all.filter((branch) => !isEnvReference(branch) && !isStringForm(branch, all));
  return real.length === 0 ? all : real;
}

function isEnvReference(schema: JsonSchema): boolean {
  return schema.$ref === '#/definitions/envReference' || schema.pattern === ENV_REFERENCE.pattern;
}

/** "8080" for a number, "true" for a boolean: the lenient forms beside the real one. */
function isStringForm(schema: JsonSchema, all: JsonSchema[]): boolean {
  if (schema.type !== 'string') return false;
  const forNumber = typeof schema.pattern === 'string' && all.some((branch) => branch.type === 'integer' || branch.type === 'number');
  const forBoolean = Array.isArray(schema.enum) && schema.enum.join() === 'true,false' && all.some((branch) => branch.type === 'boolean');
  return forNumber || forBoolean;
}

function typeName(schema: JsonSchema): string {
  const names = branches(schema).map((branch): string => {
    if (branch.type === 'array') return isSchema(branch.items) ? `list of ${typeName(branch.items)}` : 'list';
    if (branch.type === 'object') {
      const mapped = branch.additionalProperties;
      if (isSchema(mapped) && Object.keys(mapped).length > 0 && Object.keys(properties(branch)).length === 0) return `map of ${typeName(mapped)}`;
      return 'object';
    }
    return typeof branch.type === 'string' ? branch.type : 'any';
  });
  return [...new Set(names)].join(' or ');
}

function allowedValues(schema: JsonSchema): string | undefined {
  const facts = branches(schema).flatMap((branch): string[] => {
    if (Array.isArray(branch.enum)) return [`one of ${branch.enum.map((value) => `\`${String(value)}\``).join(', ')}`];
    if (branch.type === 'integer' || branch.type === 'number') {
      const range = numberRange(branch);
      return range === undefined ? [] : [range];
    }
    if (branch.type === 'string') {
      if (branch.format === 'uri') return ['a URL'];
      if (typeof branch.pattern === 'string') return [`matching \`${branch.pattern}\``];
    }
    if (branch.type === 'array' && typeof branch.minItems === 'number') return [`at least ${branch.minItems} item${branch.minItems === 1 ? '' : 's'}`];
    return [];
  });
  return facts.length === 0 ? undefined : facts.join('; ');
}

function numberRange(schema: JsonSchema): string | undefined {
  const low = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + (schema.type === 'integer' ? 1 : 0) : undefined;
  const exclusiveLow = typeof schema.exclusiveMinimum === 'number' && schema.type !== 'integer';
  const high = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  if (low !== undefined && high !== undefined) return `${low} to ${high}`;
  if (low !== undefined) return exclusiveLow ? `more than ${low}` : `${low} or more`;
  if (high !== undefined) return `at most ${high}`;
  return undefined;
}

function properties(schema: JsonSchema): Record<string, JsonSchema> {
  return isSchema(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
