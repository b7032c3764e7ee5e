// Small Markdown helpers the generated references share.

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
