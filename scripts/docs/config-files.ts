// The files generated from the config schema, as they should read: the JSON Schema of the config
// file, the configuration reference, and the Helm chart's values schema with the config schema in
// its `config` (a chart is packaged alone and cannot reach ../../config, so it carries a copy).
// config.ts writes them; test/unit/config-docs.test.ts fails when a committed one differs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configJsonSchema, ENV_REFERENCE, type JsonSchema } from './config-json-schema.js';
import { configReference } from './config-reference.js';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface GeneratedFile {
  /** Relative to the repository's root. */
  readonly path: string;
  readonly text: string;
}

export const CONFIG_SCHEMA_FILE = 'config/switchboard.schema.json';
export const CONFIG_REFERENCE_FILE = 'docs/reference/configuration.md';
export const HELM_VALUES_SCHEMA_FILE = 'helm/switchboard/values.schema.json';

export function configDocs(): GeneratedFile[] {
  const schema = configJsonSchema();
  return [
    { path: CONFIG_SCHEMA_FILE, text: json(schema) },
    { path: CONFIG_REFERENCE_FILE, text: configReference(schema) },
    { path: HELM_VALUES_SCHEMA_FILE, text: json(helmValuesSchema(readFileSync(join(REPO_ROOT, HELM_VALUES_SCHEMA_FILE), 'utf8'), schema)) },
  ];
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** The chart's values schema, its `config` replaced by the config schema (the rest is the chart's own). */
export function helmValuesSchema(valuesSchemaText: string, configSchema: JsonSchema): JsonSchema {
  const values = JSON.parse(valuesSchemaText) as JsonSchema & { properties: Record<string, JsonSchema> };
  const { $schema: _draft, title: _title, definitions: _definitions, ...config } = configSchema;
  return {
    ...values,
    properties: {
      ...values.properties,
      config: {
        ...withNullableServers(config),
        description:
          "The gateway's config file, checked by the gateway's own schema (config/switchboard.schema.json, copied here by `npm run docs:config`); the gateway validates it again at startup.",
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
