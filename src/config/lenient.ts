// Numbers and booleans may arrive as strings: `port: "${PORT}"` is the only way to interpolate a
// number in JSON, and in YAML the user should not have to know whether a quoted scalar is a string.
// Only clean literals convert ("8080", "true"), and only where the schema wants a number or a
// boolean, so a header value such as "2" stays a string. Anything else fails as the wrong type.
import { z } from 'zod';

const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function numberFromString(value: unknown): unknown {
  return typeof value === 'string' && NUMERIC.test(value.trim()) ? Number(value) : value;
}

function booleanFromString(value: unknown): unknown {
  if (value === 'true') return true;
  if (value === 'false') return false;
  return value;
}

export const lenientNumber = <T extends z.ZodType>(schema: T) => z.preprocess(numberFromString, schema);
export const lenientBoolean = () => z.preprocess(booleanFromString, z.boolean());

/** Which leniency a schema has, if any: the config's JSON Schema lets such values be strings too. */
export function lenientKind(schema: z.core.$ZodType): 'number' | 'boolean' | undefined {
  const def = schema._zod.def;
  if (def.type !== 'pipe') return undefined;
  const first = (def as z.core.$ZodPipeDef).in._zod.def;
  if (first.type !== 'transform') return undefined;
  const transform = (first as z.core.$ZodTransformDef).transform;
  if (transform === numberFromString) return 'number';
  if (transform === booleanFromString) return 'boolean';
  return undefined;
}

/** What a number may look like as a string. */
export const NUMERIC_STRING = NUMERIC;
