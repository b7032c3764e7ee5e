// The rules of the house that docs/architecture.md states, checked on the imports of src/: a move
// or a new import that breaks one fails here rather than in a reviewer's reading.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');

interface Import {
  readonly file: string;
  readonly specifier: string;
  /** For a relative import, the top folder of src/ it lands in (or the file, for src/*.ts). */
  readonly folder?: string;
}

function importsOf(): Import[] {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'));
  return files.flatMap((name) => {
    const file = join(SRC, name);
    const text = readFileSync(file, 'utf8');
    return [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map(([, specifier]): Import => {
      if (!specifier!.startsWith('.')) return { file: relative(SRC, file), specifier: specifier! };
      const target = relative(SRC, resolve(dirname(file), specifier!));
      return { file: relative(SRC, file), specifier: specifier!, folder: target.split(sep)[0]! };
    });
  });
}

const imports = importsOf();
const inFolder = (folder: string) => (entry: Import) => entry.file.startsWith(`${folder}${sep}`);
const describeImport = (entry: Import) => `${entry.file}: ${entry.specifier}`;

describe('the layers', () => {
  it('are checked on the imports as written (upstream/ does import the SDK, http/ Hono)', () => {
    expect(imports.some((entry) => inFolder('upstream')(entry) && entry.specifier.startsWith('@modelcontextprotocol/'))).toBe(true);
    expect(imports.some((entry) => inFolder('http')(entry) && entry.specifier === 'hono')).toBe(true);
    expect(imports.some((entry) => inFolder('gateway')(entry) && entry.folder === 'protocol')).toBe(true);
  });

  it('let only upstream/ import the MCP SDK', () => {
    const sdk = imports.filter((entry) => entry.specifier.startsWith('@modelcontextprotocol/') && !inFolder('upstream')(entry));
    expect(sdk.map(describeImport)).toEqual([]);
  });

  it('keep gateway/ free of Hono and Redis', () => {
    const web = imports.filter((entry) => inFolder('gateway')(entry) && /^(hono|@hono\/|ioredis)/.test(entry.specifier));
    expect(web.map(describeImport)).toEqual([]);
  });

  it('keep protocol/ a leaf that imports nothing else of ours', () => {
    const outward = imports.filter((entry) => inFolder('protocol')(entry) && entry.folder !== undefined && entry.folder !== 'protocol');
    expect(outward.map(describeImport)).toEqual([]);
  });

  it('keep upstream/ from importing the gateway or the HTTP layer', () => {
    const upward = imports.filter((entry) => inFolder('upstream')(entry) && (entry.folder === 'gateway' || entry.folder === 'http'));
    expect(upward.map(describeImport)).toEqual([]);
  });

  it('let only signin/ and connections/ import the OAuth engines, and keep signin/ free of Hono, Redis, the gateway and the HTTP layer', () => {
    const engines = imports.filter(
      (entry) => /^(oidc-provider|openid-client|oauth4webapi)$/.test(entry.specifier) && !inFolder('signin')(entry) && !(inFolder('connections')(entry) && entry.specifier !== 'oidc-provider'),
    );
    expect(engines.map(describeImport)).toEqual([]);
    const outward = imports.filter(
      (entry) => inFolder('signin')(entry) && (/^(hono|@hono\/|ioredis)/.test(entry.specifier) || entry.folder === 'http' || entry.folder === 'gateway'),
    );
    expect(outward.map(describeImport)).toEqual([]);
  });
});
