// What a kustomization refers to, read without kustomize: its resources (files, or directories
// with their own kustomization), patch files and generator inputs, so each can be checked to exist
// and each resource file validated on its own.
import { existsSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isPlainObject, readYaml, REPO_ROOT } from './repo.js';

export interface Kustomization {
  /** The directory, relative to the repository. */
  readonly dir: string;
  /** Resource files (not directories), absolute. */
  readonly resourceFiles: readonly string[];
  /** Other kustomizations it builds on (`resources: [../base]`). */
  readonly bases: readonly Kustomization[];
  /** Every path it names, absolute: resources, patch files, generator files. */
  readonly referencedPaths: readonly string[];
}

export function readKustomization(dir: string): Kustomization {
  const file = join(dir, 'kustomization.yaml');
  const spec = readYaml(file);
  if (!isPlainObject(spec)) throw new Error(`${file}: not a mapping`);
  const resourceFiles: string[] = [];
  const bases: Kustomization[] = [];
  const referencedPaths: string[] = [];

  for (const entry of stringList(spec.resources)) {
    const path = join(dir, entry);
    referencedPaths.push(path);
    if (existsSync(path) && statSync(path).isDirectory()) bases.push(readKustomization(path));
    else resourceFiles.push(path);
  }
  for (const patch of objectList(spec.patches)) {
    if (typeof patch.path === 'string') referencedPaths.push(join(dir, patch.path));
  }
  for (const generator of [...objectList(spec.configMapGenerator), ...objectList(spec.secretGenerator)]) {
    for (const entry of stringList(generator.files)) {
      // `key=path` or `path`
      referencedPaths.push(join(dir, entry.includes('=') ? entry.slice(entry.indexOf('=') + 1) : entry));
    }
  }
  return { dir: relative(REPO_ROOT, dir), resourceFiles, bases, referencedPaths };
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function objectList(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}
