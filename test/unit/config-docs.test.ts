// The files generated from the config schema (scripts/docs/config-files.ts) are committed: they
// must be what the schema makes of them now. And the JSON Schema must agree with the gateway:
// the configs the repository ships validate, and a wrong one does not.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { CONFIG_SCHEMA_FILE, configDocs, REPO_ROOT } from '../../scripts/docs/config-files.js';
import { mergeValues } from '../deploy/support/helm-values.js';

// ajv-formats is CommonJS: under NodeNext, TypeScript types its default import as the exports
// object, while at run time it is the plugin function itself.
const addFormats = addFormatsPlugin as unknown as typeof addFormatsPlugin.default;

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');

function schemaProblems(schemaFile: string, value: unknown): string[] {
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  const validate = ajv.compile(JSON.parse(read(schemaFile)) as object);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`);
}

const configProblems = (config: unknown) => schemaProblems(CONFIG_SCHEMA_FILE, config);

describe('the generated configuration reference and JSON Schema', () => {
  for (const { path, text } of configDocs()) {
    it(`${path} is what \`npm run docs:config\` writes now`, () => {
      // Stale: run `npm run docs:config` and commit the result.
      expect(read(path)).toBe(text);
    });
  }

  it('documents every key of the schema with a description', () => {
    const undescribed: string[] = [];
    const walk = (schema: Record<string, unknown>, path: string): void => {
      for (const branch of (schema.anyOf as Record<string, unknown>[] | undefined) ?? [schema]) {
        for (const [key, child] of Object.entries((branch.properties as Record<string, Record<string, unknown>> | undefined) ?? {})) {
          if (typeof child.description !== 'string') undescribed.push(`${path}.${key}`);
          walk(child, `${path}.${key}`);
        }
        const entry = branch.additionalProperties;
        if (typeof entry === 'object' && entry !== null) {
          // A map of objects (servers, endpoints, tools) says what one entry is.
          const isObjectMap = JSON.stringify(entry).includes('"properties"');
          if (isObjectMap && typeof (entry as Record<string, unknown>).description !== 'string') undescribed.push(`${path}.<key>`);
          walk(entry as Record<string, unknown>, `${path}.<key>`);
        }
        if (typeof branch.items === 'object') walk(branch.items as Record<string, unknown>, `${path}[]`);
      }
    };
    walk(JSON.parse(read(CONFIG_SCHEMA_FILE)) as Record<string, unknown>, '');
    expect(undescribed).toEqual([]);
  });

  it('accepts the shipped config, the kustomize config and the Helm chart\'s configs', () => {
    expect(read('config/switchboard.yaml').split('\n')[0]).toBe('# yaml-language-server: $schema=./switchboard.schema.json');
    expect(configProblems(parse(read('config/switchboard.yaml')))).toEqual([]);
    expect(configProblems(parse(read('deploy/base/switchboard.yaml')))).toEqual([]);
    expect(configProblems((parse(read('helm/switchboard/values.yaml')) as { config: unknown }).config)).toEqual([]);
    expect(read('helm/switchboard/values.yaml').split('\n')[0]).toBe('# yaml-language-server: $schema=values.schema.json');
  });

  it('accepts the example Helm values merged over the defaults, a config with most sections', () => {
    const values = (path: string) => parse(read(path)) as { config: Record<string, unknown> };
    // As Helm merges them: a null (`mcpServers.everything: null`) removes the key.
    const config = mergeValues(values('helm/switchboard/values.yaml').config, values('helm/switchboard/ci/full-values.yaml').config);
    expect(Object.keys(config)).toEqual(expect.arrayContaining(['auth', 'policy', 'endpoints', 'limits', 'pinning']));
    expect(configProblems(config)).toEqual([]);
  });

  it('accepts ${VAR} wherever a value may be one, and numbers and booleans written as strings', () => {
    const config = {
      server: { port: '${PORT:-8080}', path: '${MCP_PATH}', maxBodyBytes: '1048576' },
      sessions: { redisUrl: '${REDIS_URL:-}', store: '${STORE}' },
      mcpServers: { search: { url: '${SEARCH_URL}', enabled: 'false', timeoutMs: '${TIMEOUT}' }, notes: { type: 'stdio', command: 'notes', disabled: true } },
      pinning: '${PINNING:-off}',
    };
    expect(configProblems(config)).toEqual([]);
    const env = { PORT: '9000', MCP_PATH: '/gw', STORE: 'memory', SEARCH_URL: 'https://search.example.com/mcp', TIMEOUT: '5000', PINNING: 'warn' };
    expect(() => parseConfigText(JSON.stringify(config), 'json', env)).not.toThrow();
  });

  it('refuses what the gateway refuses: an unknown key, a wrong type, a server with neither command nor url', () => {
    expect(configProblems({ server: { prot: 8080 } })).toContain('/server must NOT have additional properties');
    expect(configProblems({ server: { port: 'eighty' } }).length).toBeGreaterThan(0);
    expect(configProblems({ mcpServers: { search: { headers: {} } } }).length).toBeGreaterThan(0);
    expect(configProblems({ pinning: 'sometimes' }).length).toBeGreaterThan(0);
    expect(configProblems({ mcpServers: { search: { url: 'https://a.example/mcp', command: 'a' } } }).length).toBeGreaterThan(0);
  });
});
