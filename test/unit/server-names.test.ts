import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SLUG_PATTERN, serverSlug } from '../../src/config/server-names.js';

const sha8 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 8);

describe('the slug of a server name', () => {
  it.each([
    // Names from Claude Desktop, Cursor and VS Code configs.
    ['GitHub', 'github'],
    ['brave_search', 'brave-search'],
    ['My Notes', 'my-notes'],
    ['a.b', 'a-b'],
    ['Google Drive (work)', 'google-drive-work'],
    ['@modelcontextprotocol/server-memory', 'modelcontextprotocol-se-' + sha8('modelcontextprotocol-server-memory')],
    ['  padded  ', 'padded'],
    ['--edge--', 'edge'],
    ['A--B', 'a-b'],
    // Unicode: accents dropped, compatibility forms folded, a few letters spelled in ASCII.
    ['Café Crème', 'cafe-creme'],
    ['Straße', 'strasse'],
    ['Ærø Ferry', 'aero-ferry'],
    ['Łódź', 'lodz'],
    ['İstanbul', 'istanbul'],
    ['ＦＵＬＬ　ＷＩＤＴＨ', 'full-width'],
    ['📝 Notes', 'notes'],
  ])('of %j is %j', (name, slug) => {
    expect(serverSlug(name)).toBe(slug);
  });

  it.each(['filesystem', 'everything', 'memory', 'a', '0', 'a--b', 'x-', 'x'.repeat(32)])(
    'of %j, a name that fits the old rule, is the name itself',
    (name) => {
      expect(serverSlug(name)).toBe(name);
    },
  );

  it.each(['東京', '🚀🚀', 'Заметки', '   ', '___'])('of %j, where nothing is left, is "server-" and a hash of the name', (name) => {
    expect(serverSlug(name)).toBe(`server-${sha8(name)}`);
  });

  it('tells apart names that leave nothing', () => {
    expect(serverSlug('東京')).not.toBe(serverSlug('大阪'));
  });

  it('of a long name is its first 23 characters, "-" and a hash of the whole normalized name', () => {
    const slug = serverSlug('The Company Internal Knowledge Base (production)');
    expect(slug).toBe(`the-company-internal-kn-${sha8('the-company-internal-knowledge-base-production')}`);
    expect(slug).toHaveLength(32);
  });

  it('keeps two long names with the same beginning apart', () => {
    expect(serverSlug('The Company Internal Knowledge Base (production)')).not.toBe(serverSlug('The Company Internal Knowledge Base (staging)'));
  });

  it('gives the same slug to names that differ only in case, accents or punctuation (so the schema refuses them together)', () => {
    expect(new Set(['My Notes', 'my notes', 'my_notes', 'my.notes', 'My-Notes', 'Mý Nötes']).size).toBe(6);
    expect(new Set(['My Notes', 'my notes', 'my_notes', 'my.notes', 'My-Notes', 'Mý Nötes'].map(serverSlug))).toEqual(new Set(['my-notes']));
  });

  it('always fits the slug alphabet, and a slug is its own slug', () => {
    const names = ['GitHub', 'brave_search', 'My Notes', 'x'.repeat(200), 'Ω', '-', 'a\u0000b', '\u{1F600}a', 'ß'.repeat(40), 'a-'.repeat(20)];
    for (const name of names) {
      const slug = serverSlug(name);
      expect(slug, name).toMatch(SLUG_PATTERN);
      expect(serverSlug(slug)).toBe(slug);
    }
  });

  it('is the same on every call', () => {
    expect(serverSlug('My Notes')).toBe(serverSlug('My Notes'));
    expect(serverSlug('🚀')).toBe(serverSlug('🚀'));
  });
});
