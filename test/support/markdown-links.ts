// The relative links of Markdown files and the anchors GitHub gives their headings, for the link
// check (test/unit/docs-links.test.ts). A heading's slug is headingSlug's (the generators make
// their anchors with it too); a repeated slug gets -1, -2, ... in order, as github-slugger numbers.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { headingSlug } from '../../scripts/docs/lib/markdown.js';

/** Anchors of a Markdown text: its headings' slugs (numbered as GitHub numbers repeats) and explicit `<a id|name>`s. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const heading of headingsOf(markdown)) {
    const base = headingSlug(heading);
    let slug = base;
    while (seen.has(slug)) {
      const count = seen.get(base)! + 1;
      seen.set(base, count);
      slug = `${base}-${count}`;
    }
    seen.set(slug, 0);
    anchors.add(slug);
  }
  for (const [, id] of markdown.matchAll(/<a\s+(?:[^>]*\s)?(?:id|name)="([^"]+)"/g)) anchors.add(id!);
  return anchors;
}

/** The lines outside fenced code blocks, with their 1-based line numbers. */
function proseLines(markdown: string): { text: string; line: number }[] {
  const lines: { text: string; line: number }[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, index) => {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence === undefined && marker !== undefined) fence = marker;
    else if (fence !== undefined && marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && text.trim() === marker) fence = undefined;
    else if (fence === undefined) lines.push({ text, line: index + 1 });
  });
  return lines;
}

/** The text of each ATX (`## Title`) and setext (`Title` over `===` or `---`) heading, in order. */
function headingsOf(markdown: string): string[] {
  const headings: string[] = [];
  const lines = proseLines(markdown);
  lines.forEach(({ text, line }, index) => {
    const atx = /^\s{0,3}#{1,6}(?:\s+(.*?))?(?:\s+#+)?\s*$/.exec(text);
    if (atx) {
      headings.push(atx[1] ?? '');
      return;
    }
    const next = lines[index + 1];
    const underlined = next !== undefined && next.line === line + 1 && /^\s{0,3}(=+|-+)\s*$/.test(next.text);
    if (underlined && text.trim() !== '' && !/^\s{0,3}([-*_]\s*){3,}$/.test(text) && !/^\s*[-*+>|]/.test(text)) headings.push(text);
  });
  return headings;
}

export interface Link {
  readonly target: string;
  readonly line: number;
}

/** Inline links and images, and reference definitions, outside code blocks and code spans. */
export function linksOf(markdown: string): Link[] {
  const links: Link[] = [];
  for (const { text, line } of proseLines(markdown)) {
    const prose = text.replace(/(`+)[^`]*?\1/g, '');
    for (const [, target] of prose.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+["'(][^)]*)?\)/g)) links.push({ target: target!, line });
    const definition = /^\s{0,3}\[[^\]]+\]:\s+<?([^\s>]+)>?/.exec(prose);
    if (definition) links.push({ target: definition[1]!, line });
  }
  return links;
}

/** Links that leave the repository (or are not file links at all) are not checked. */
const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/**
 * What is wrong with the relative links of `file`: a target that does not exist, or an anchor that
 * no heading of the target Markdown file has. Anchors into other kinds of file are not checked.
 */
export function brokenLinks(file: string, root: string): string[] {
  const markdown = readFileSync(file, 'utf8');
  const problems: string[] = [];
  const where = (line: number) => `${relative(root, file)}:${line}`;
  for (const { target, line } of linksOf(markdown)) {
    if (target === '' || EXTERNAL.test(target)) continue;
    const hash = target.indexOf('#');
    const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
    const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const targetFile = pathPart === '' ? file : pathPart.startsWith('/') ? resolve(root, `.${pathPart}`) : resolve(dirname(file), pathPart);
    if (!existsSync(targetFile)) {
      problems.push(`${where(line)}: ${target}: no such file`);
      continue;
    }
    if (anchor === undefined || anchor === '' || !targetFile.endsWith('.md') || statSync(targetFile).isDirectory()) continue;
    if (!anchorsOf(readFileSync(targetFile, 'utf8')).has(anchor)) problems.push(`${where(line)}: ${target}: no heading with anchor #${anchor}`);
  }
  return problems;
}
