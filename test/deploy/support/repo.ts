// Paths into the repository and the readers the deploy tests share: YAML (one or many documents),
// JSON, text.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';

export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const CHART_DIR = join(REPO_ROOT, 'helm', 'switchboard');
export const DEPLOY_DIR = join(REPO_ROOT, 'deploy');
export const MONITORING_DIR = join(DEPLOY_DIR, 'monitoring');

export function repoPath(...segments: string[]): string {
  return join(REPO_ROOT, ...segments);
}

export function readText(path: string): string {
  return readFileSync(path, 'utf8');
}

export function readYaml(path: string): unknown {
  return parse(readText(path));
}

/** Every non-empty document of a multi-document YAML file; a syntax error throws, naming the file. */
export function readYamlDocuments(path: string): unknown[] {
  return parseAllDocuments(readText(path)).flatMap((document) => {
    if (document.errors.length > 0) throw new Error(`${path}: ${document.errors.map((error) => error.message).join('; ')}`);
    const value: unknown = document.toJS();
    return value === null || value === undefined ? [] : [value];
  });
}

export function readJson(path: string): unknown {
  return JSON.parse(readText(path)) as unknown;
}

export type PlainObject = Record<string, unknown>;

export function isPlainObject(value: unknown): value is PlainObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
