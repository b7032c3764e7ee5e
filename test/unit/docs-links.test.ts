// Every relative link and anchor in the project's Markdown resolves, so a page that moves or a
// heading that is renamed fails here rather than in a reader's browser. External links are not
// fetched: their rot is not the change's doing, and a test must not depend on the network.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { headingSlug } from '../../scripts/docs/lib/markdown.js';
import { anchorsOf, brokenLinks, linksOf } from '../support/markdown-links.js';

const ROOT = join(import.meta.dirname, '../..');

/** The pages a reader is sent to: the front files, docs/, and the READMEs beside the code. */
function checkedFiles(root: string): string[] {
  const front = ['README.md', 'CONTRIBUTING.md', 'SECURITY.md', 'CHANGELOG.md'].map((name) => join(root, name)).filter((file) => existsSync(file));
  const under = (folder: string, keep: (name: string) => boolean) =>
    existsSync(join(root, folder))
      ? readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
          .filter((name) => keep(name.split(/[\\/]/).at(-1)!))
          .map((name) => join(root, folder, name))
      : [];
  return [...front, ...under('docs', (name) => name.endsWith('.md')), ...under('src', (name) => name === 'README.md')].sort();
}

describe('links in the documentation', () => {
  it('resolve: every relative link names a file that exists, and every anchor a heading of it', () => {
    const files = checkedFiles(ROOT);
    expect(files.map((file) => relative(ROOT, file))).toContain('README.md');
    expect(files.flatMap((file) => brokenLinks(file, ROOT))).toEqual([]);
  });
});

describe('the link check', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  function fixture(files: Record<string, string>): string {
    dir = mkdtempSync(join(tmpdir(), 'docs-links-'));
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(join(dir, name, '..'), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    return dir;
  }

  it('reports a link to a missing file and an anchor no heading has, with file and line', () => {
    const root = fixture({
      'README.md': '# Top\n\nSee [the guide](docs/guide.md#setting-up) and [gone](docs/gone.md).\n',
      'docs/guide.md': '# Guide\n\n## Set up\n',
    });
    expect(checkedFiles(root).flatMap((file) => brokenLinks(file, root))).toEqual([
      'README.md:3: docs/guide.md#setting-up: no heading with anchor #setting-up',
      'README.md:3: docs/gone.md: no such file',
    ]);
  });

  it('accepts what resolves: same-page anchors, folders, parent paths, numbered repeats, and skips external links', () => {
    const root = fixture({
      'README.md': '# Top\n\n## Usage\n\n## Usage\n\n[a](#usage-1) [b](src/) [c](https://example.com/x#y) [d](mailto:a@b.c) [e](docs/guide.md#guide)\n',
      'docs/guide.md': '# Guide\n\nBack to [the top](../README.md#top).\n',
      'src/x/README.md': 'text\n',
    });
    expect(checkedFiles(root).flatMap((file) => brokenLinks(file, root))).toEqual([]);
  });

  it('ignores links inside code blocks and code spans', () => {
    expect(linksOf('```\n[a](nowhere.md)\n```\n`[b](nowhere.md)` [c](here.md "title")\n[ref]: <there.md>\n')).toEqual([
      { target: 'here.md', line: 4 },
      { target: 'there.md', line: 5 },
    ]);
  });
});

describe('heading anchors, by GitHub’s rule', () => {
  it.each([
    ['Rate limits (`limits`)', 'rate-limits-limits'],
    ['`switchboard_rpc_requests_total`', 'switchboard_rpc_requests_total'],
    ['Input / output', 'input--output'],
    ['Node.js 20 (or later)', 'nodejs-20-or-later'],
    ['The 2026-07-28 requirement set', 'the-2026-07-28-requirement-set'],
    ['Scenarios (the active suite of 0.1.16: all 30 pass)', 'scenarios-the-active-suite-of-0116-all-30-pass'],
    ['See [the guide](docs/guide.md) **now**', 'see-the-guide-now'],
    ['Café & Ünïcode?', 'café--ünïcode'],
    ['  Padded  ', 'padded'],
  ])('%s -> #%s', (heading, slug) => {
    expect(headingSlug(heading)).toBe(slug);
  });

  it('numbers repeated headings -1, -2 in order, and ignores # lines in code blocks', () => {
    const anchors = anchorsOf('# A\n## A\n```sh\n# A\n```\n### A\nSetext\n---\n<a id="custom"></a>\n');
    expect([...anchors]).toEqual(['a', 'a-1', 'a-2', 'setext', 'custom']);
  });
});
