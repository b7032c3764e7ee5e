// The JSON Schema of the config FILE, as a user writes it, built from the zod schema (zod's input
// side), so editors complete and check the keys that the gateway itself accepts. Three things the
// file allows that the zod input schema does not say by itself:
// - `${VAR}` and `${VAR:-default}` in any string value (load.ts interpolates before validating):
//   every value with a pattern, format, enum, number or boolean may also be a reference;
// - numbers and booleans as strings where the schema is lenient ("8080", "true"; lenient.ts);
// - the aliases of other clients' files (`type`, `disabled`; aliases.ts), and the kind of server
//   chosen by `command` or `url`, which schema.ts decides in code rather than as a union.
import { z } from 'zod';
import { TRANSPORT_OF_TYPE } from '../../../src/config/aliases.js';
import { lenientKind, NUMERIC_STRING } from '../../../src/config/lenient.js';
import { configSchema, httpServer, pinningSection, stdioServer, upstreamServer } from '../../../src/config/schema.js';

export type JsonSchema = Record<string, unknown>;

const ENV_REFERENCE_REF = '#/definitions/envReference';
/** The definition that ENV_REFERENCE_REF names; a document embedding the schema must carry it. */
export const ENV_REFERENCE: JsonSchema = {
  type: 'string',
  pattern: '\\$\\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\\}',
  description: 'A `${VAR}` or `${VAR:-default}` reference, replaced from the environment when the gateway reads the file.',
};
const envReference = (): JsonSchema => ({ $ref: ENV_REFERENCE_REF });

/** The keys other MCP clients write in a server entry, rewritten by the loader (aliases.ts). */
const TYPE_ALIAS =
  'As other MCP clients write it: `stdio` with `command`; with `url`, `http` or `streamable-http` (meaning `transport: streamable-http`) or `sse` (`transport: sse`).';
const ALIASES = {
  stdio: { type: { type: 'string', enum: ['stdio'], description: TYPE_ALIAS } },
  http: { type: { type: 'string', enum: Object.keys(TRANSPORT_OF_TYPE), description: TYPE_ALIAS } },
  disabled: { anyOf: [{ type: 'boolean' }, { type: 'string', enum: ['true', 'false'] }, envReference()], description: 'As other MCP clients write it: the opposite of `enabled`.' },
};

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const STANDARD_FORMATS = new Set(['uri']);
/** `pinning: enforce` is short for `pinning: {mode: enforce}`: the modes, from the schema. */
const PINNING_MODES = pinningModes();

export function configJsonSchema(): JsonSchema {
  const schema = convert(configSchema);
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'Switchboard configuration (switchboard.yaml)',
    description:
      'The config file of the Switchboard MCP gateway. Generated from src/config/schema.ts by `npm run docs`; see docs/reference/configuration.md.',
    ...withoutDraft(schema),
    definitions: { envReference: ENV_REFERENCE },
  };
}

function convert(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, { io: 'input', target: 'draft-07', unrepresentable: 'throw', override: ({ zodSchema, jsonSchema, path }) => adjust(zodSchema, jsonSchema, path) });
}

function withoutDraft({ $schema: _draft, ...schema }: JsonSchema): JsonSchema {
  return schema;
}

function adjust(zodSchema: z.core.$ZodType, json: JsonSchema, path: readonly (string | number)[]): void {
  if (zodSchema === upstreamServer) {
    return replace(json, { anyOf: [serverKind(stdioServer, ALIASES.stdio), serverKind(httpServer, ALIASES.http)], description: 'One upstream: a stdio server (`command`) or an HTTP server (`url`).' });
  }
  if (zodSchema === pinningSection) return replace(json, { anyOf: [{ type: 'string', enum: PINNING_MODES }, envReference(), { ...json }] });
  // zod leaves out defaults behind a transform (they are output values); the file's are the same.
  const def = zodSchema._zod.def;
  if (def.type === 'default' && json.default === undefined) json.default = (def as z.core.$ZodDefaultDef).defaultValue;
  // An object's default is what its own keys default to: said there, not as a whole object.
  if (isObject(json.default)) delete json.default;
  // zod names its own checks as formats (`includes`); only the standard ones mean anything to a validator.
  if (json.format !== undefined && !STANDARD_FORMATS.has(String(json.format))) delete json.format;
  if (json.maximum === MAX_SAFE) delete json.maximum;
  if (json.minimum === -MAX_SAFE) delete json.minimum;

  const lenient = lenientKind(zodSchema);
  if (lenient !== undefined) {
    const asString = lenient === 'number' ? { type: 'string', pattern: NUMERIC_STRING.source } : { type: 'string', enum: ['true', 'false'] };
    return wrap(json, [asString, envReference()]);
  }
  // Keys are not interpolated; values are.
  const isKey = path.includes('propertyNames');
  if (!isKey && json.type === 'string' && (json.pattern !== undefined || json.format !== undefined || json.enum !== undefined)) wrap(json, [envReference()]);
}

/** `json` becomes `anyOf: [json, ...alternatives]`, keeping its description and default outside. */
function wrap(json: JsonSchema, alternatives: JsonSchema[]): void {
  const { description, default: fallback, ...own } = json;
  replace(json, {
    anyOf: [own, ...alternatives],
    ...(description !== undefined && { description }),
    ...(fallback !== undefined && { default: fallback }),
  });
}

function replace(json: JsonSchema, next: JsonSchema): void {
  for (const key of Object.keys(json)) delete json[key];
  Object.assign(json, next);
}

function serverKind(schema: z.ZodObject, aliases: JsonSchema): JsonSchema {
  const json = withoutDraft(convert(schema));
  const properties = json.properties as JsonSchema;
  return { ...json, properties: { ...properties, ...aliases, disabled: ALIASES.disabled } };
}

function pinningModes(): readonly string[] {
  const pipe = pinningSection._zod.def as z.core.$ZodPipeDef;
  const mode = (pipe.out as z.ZodObject).shape.mode as z.ZodDefault<z.ZodEnum>;
  return mode.unwrap().options as string[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
