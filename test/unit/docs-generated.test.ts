// The generated references are what their generators make from the code now: each generator under
// scripts/docs/ is run in memory and its files compared with the committed ones, so a change to a
// metric, an audit field (or any other generated source) that forgets `npm run docs` fails here.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT, staleFiles, type GeneratedFiles } from '../../scripts/docs/lib/generated-files.js';

const DOCS_SCRIPTS = join(ROOT, 'scripts/docs');
const generators = readdirSync(DOCS_SCRIPTS).filter((name) => name.endsWith('.ts')).sort();

describe('generated documentation', () => {
  it('has the metric and audit references among its generators', () => {
    expect(generators).toEqual(expect.arrayContaining(['metrics.ts', 'audit.ts']));
  });

  it.each(generators)('scripts/docs/%s: the committed files are what it generates now', async (name) => {
    const module = (await import(join(DOCS_SCRIPTS, name))) as { generate?: () => GeneratedFiles | Promise<GeneratedFiles> };
    expect(module.generate, `scripts/docs/${name} exports no generate() (see scripts/docs/README.md)`).toBeTypeOf('function');
    const files = await module.generate!();
    expect(files.size).toBeGreaterThan(0);
    expect(staleFiles(files), 'run `npm run docs` and commit the result').toEqual([]);
  });

  it('tells a stale or missing file from a fresh one', () => {
    const root = mkdtempSync(join(tmpdir(), 'docs-generated-'));
    try {
      writeFileSync(join(root, 'fresh.md'), 'same\n');
      writeFileSync(join(root, 'stale.md'), 'old\n');
      const files = new Map([
        ['fresh.md', 'same\n'],
        ['stale.md', 'new\n'],
        ['missing.md', 'new\n'],
      ]);
      expect(staleFiles(files, root)).toEqual(['stale.md', 'missing.md']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('`--check` exits 0 when a generator\'s files are fresh, and writes nothing', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', join(DOCS_SCRIPTS, 'metrics.ts'), '--check'], { cwd: ROOT });
    expect(stdout).toBe('');
  });
});
