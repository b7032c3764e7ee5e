// The files made from the config schema (src/config/schema.ts and what it composes): the JSON
// Schema of the config file (config/json-schema.ts), the configuration reference rendered from it
// (config/reference.ts), and the Helm chart's values schema with a copy of it as `config` (a
// packaged chart cannot reach outside its folder). Only `config` of values.schema.json is
// generated: the chart's own keys are edited in that file, and kept as they are.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configJsonSchema, ENV_REFERENCE, type JsonSchema } from './config/json-schema.js';
import { configReference } from './config/reference.js';
import { isMain, ROOT, runGenerator, type GeneratedFiles } from './lib/generated-files.js';

export const CONFIG_SCHEMA_FILE = 'config/switchboard.schema.json';
export const CONFIG_REFERENCE_PAGE = 'docs/reference/configuration.md';
export const HELM_VALUES_SCHEMA_FILE = 'helm/switchboard/values.schema.json';

export function generate(): GeneratedFiles {
  const schema = configJsonSchema();
  const chartSchema = readFileSync(join(ROOT, HELM_VALUES_SCHEMA_FILE), 'utf8');
  return new Map([
    [CONFIG_SCHEMA_FILE, json(schema)],
    [CONFIG_REFERENCE_PAGE, configReference(schema)],
    [HELM_VALUES_SCHEMA_FILE, json(helmValuesSchema(chartSchema, schema))],
  ]);
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** The chart's values schema, its `config` replaced by the config schema. */
function helmValuesSchema(valuesSchemaText: string, configSchema: JsonSchema): JsonSchema {
  const values = JSON.parse(valuesSchemaText) as JsonSchema & { properties: Record<string, JsonSchema> };
  const { $schema: _draft, title: _title, definitions: _definitions, ...config } = configSchema;
  return {
    ...values,
    properties: {
      ...values.properties,
      config: {
        ...withNullableServers(config),
        description:
          "The gateway's config file, checked by the gateway's own schema (config/switchboard.schema.json, copied here by `npm run docs`); the gateway validates it again at startup.",
      },
    },
    definitions: { ...(values.definitions as JsonSchema | undefined), envReference: ENV_REFERENCE },
  };
}

// Helm merges a user's values over the chart's, and null removes a key: `config.mcpServers.everything:
// null` drops a server the chart ships, so a server entry may be null in values.
function withNullableServers(config: JsonSchema): JsonSchema {
  const properties = config.properties as Record<string, JsonSchema>;
  const servers = properties.mcpServers!;
  return {
    ...config,
    properties: { ...properties, mcpServers: { ...servers, additionalProperties: { anyOf: [servers.additionalProperties, { type: 'null' }] } } },
  };
}

if (isMain(import.meta.url)) await runGenerator(generate);
