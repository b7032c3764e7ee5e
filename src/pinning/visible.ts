// Characters a reviewer cannot see: zero-width and other format characters (U+200B, bidi
// controls, the U+E0000 tags that smuggle ASCII), variation selectors (which can carry bytes too),
// private-use and unassigned code points, control characters, and spaces other than U+0020. A
// tool description is text a model reads and a human approves; text that reads differently to the
// two is what pinning exists to catch, so wherever the gateway shows a definition to a human (the
// lock file, a diff, a log line) these are spelled out.

const HIDDEN = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}\u{FE00}-\u{FE0F}\u{E0100}-\u{E01EF}]/u;

/** Ordinary whitespace a reader sees as such. */
const VISIBLE_WHITESPACE = new Set([' ', '\n', '\t']);

export function isHidden(char: string): boolean {
  return !VISIBLE_WHITESPACE.has(char) && HIDDEN.test(char);
}

export function hasHidden(text: string): boolean {
  for (const char of text) if (isHidden(char)) return true;
  return false;
}

function codePoint(char: string): string {
  return char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
}

/** For people: each hidden character as `<U+200B>`. */
export function showHidden(text: string): string {
  let shown = '';
  for (const char of text) shown += isHidden(char) ? `<U+${codePoint(char)}>` : char;
  return shown;
}

/** A YAML double-quoted scalar of the text, with every hidden character as an escape (`\u200B`, `\U000E0041`). */
export function yamlEscaped(text: string): string {
  let quoted = '"';
  for (const char of text) {
    if (char === '\\') quoted += '\\\\';
    else if (char === '"') quoted += '\\"';
    else if (char === '\n') quoted += '\\n';
    else if (char === '\t') quoted += '\\t';
    else if (isHidden(char)) {
      const hex = codePoint(char);
      quoted += hex.length <= 4 ? `\\u${hex}` : `\\U${hex.padStart(8, '0')}`;
    } else quoted += char;
  }
  return `${quoted}"`;
}
