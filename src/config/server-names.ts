// Server names as users write them (`GitHub`, `brave_search`, `My Notes`: whatever a Claude
// Desktop, Cursor or VS Code config says) and the slug each one gets where an alphabet rule
// applies: the default tool prefix, the server tag in exposed resource URIs, the `server` label of
// metrics, the server part of policy patterns (next to the name itself) and Redis keys. Log lines,
// audit lines, /readyz and error messages keep the name as written.
//
// The slug is a pure function of the name, so every replica and every restart agrees on it:
//   1. a name that already fits [a-z0-9][a-z0-9-]{0,31} is its own slug (the rule names had to
//      follow before; configs written for it behave exactly as they did);
//   2. otherwise: Unicode compatibility decomposition (NFKD), lower case, accents dropped, a few
//      Latin letters spelled in ASCII (ß -> ss, æ -> ae, ø -> o, ...), every run of other characters
//      becomes one "-", and "-" is trimmed from both ends;
//   3. longer than 32: the first 23 characters, "-" and 8 hex digits of SHA-256 of the whole
//      normalized form, so two long names that share a beginning stay apart;
//   4. nothing left (only emoji, CJK, punctuation, ...): "server-" and 8 hex digits of SHA-256 of
//      the name.
// Two enabled servers whose names give the same slug are refused by the schema, naming both.
import { createHash } from 'node:crypto';

/** The slug alphabet: what server names had to match before any name was accepted. */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/;
export const SLUG_MAX = 32;
/** Names longer than this (in characters) are refused: they end up in every log and audit line. */
export const SERVER_NAME_MAX = 128;

const HASH_CHARS = 8;
const EMPTY_SLUG_PREFIX = 'server-';
const COMBINING_MARKS = /\p{M}+/gu;
const OUTSIDE_ALPHABET = /[^a-z0-9]+/g;
/** Latin letters that NFKD leaves whole, spelled the way their languages spell them in ASCII. */
const ASCII_SPELLING: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ł: 'l',
  ı: 'i',
  ħ: 'h',
};
const SPELLED_LETTERS = new RegExp(`[${Object.keys(ASCII_SPELLING).join('')}]`, 'g');

/** Asked for on every request (metrics, URIs, policy): each name is normalized once. */
const slugs = new Map<string, string>();
const CACHE_MAX = 1024;

/** The slug of a server name (see the rules above). */
export function serverSlug(name: string): string {
  if (SLUG_PATTERN.test(name)) return name;
  let slug = slugs.get(name);
  if (slug === undefined) {
    slug = normalize(name);
    // Names come from the config, so the map stays small; the bound is against misuse.
    if (slugs.size >= CACHE_MAX) slugs.clear();
    slugs.set(name, slug);
  }
  return slug;
}

function normalize(name: string): string {
  const folded = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(COMBINING_MARKS, '')
    .replace(SPELLED_LETTERS, (letter) => ASCII_SPELLING[letter] ?? letter)
    .replace(OUTSIDE_ALPHABET, '-')
    .replace(/^-+|-+$/g, '');
  if (folded === '') return `${EMPTY_SLUG_PREFIX}${sha256Hex(name).slice(0, HASH_CHARS)}`;
  if (folded.length <= SLUG_MAX) return folded;
  const head = folded.slice(0, SLUG_MAX - HASH_CHARS - 1).replace(/-+$/, '');
  return `${head}-${sha256Hex(folded).slice(0, HASH_CHARS)}`;
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
