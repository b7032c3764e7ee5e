// Small Markdown helpers the generated references share, and GitHub's rule for heading anchors
// (github-slugger is not a dependency): the heading's text as GitHub renders it (code spans, links
// and images reduced to their text, tags dropped), trimmed, lower-cased, every character that is not
// a letter, mark, number, connector (`_`), hyphen or space dropped, each space a hyphen.

/** A table cell's text: pipes escaped and line breaks folded, so the row stays one row. */
export function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

/** A Markdown table; the header row's cells, then each row's. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** `value` in a code span (values here never hold a backtick). */
export function code(value: string | number): string {
  return `\`${value}\``;
}

/** The slug of one heading's Markdown text, before duplicates are numbered. */
export function headingSlug(markdown: string): string {
  return renderedText(markdown)
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** What GitHub shows of a heading's inline Markdown: the text, without the markup. */
function renderedText(markdown: string): string {
  return markdown
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`+/g, '');
}
