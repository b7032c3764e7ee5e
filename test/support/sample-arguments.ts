// Arguments that satisfy a tool's input schema: each required property gets a plain value of its
// type (the first enum value where there is one), which is all the fixture tools need.

export function sampleArguments(inputSchema: unknown): Record<string, unknown> {
  const schema = (inputSchema ?? {}) as { properties?: Record<string, JsonSchema>; required?: string[] };
  const args: Record<string, unknown> = {};
  for (const name of schema.required ?? []) args[name] = sampleValue(schema.properties?.[name] ?? {});
  return args;
}

interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  default?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
}

function sampleValue(schema: JsonSchema): unknown {
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return sampleArguments(schema);
    default:
      return 'sample';
  }
}
