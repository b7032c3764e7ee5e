// Text to a plain tree, with syntax errors that say where. JSON is parsed as JSON (not as YAML,
// which would accept what a JSON user did not mean); anything not named .json is YAML.
import { parseDocument } from 'yaml';
import type { PathProblem } from './key-path.js';

export type ConfigFormat = 'yaml' | 'json';

export type ParsedText = { readonly ok: true; readonly tree: unknown } | { readonly ok: false; readonly problem: PathProblem };

export function formatOfFile(file: string): ConfigFormat {
  return file.toLowerCase().endsWith('.json') ? 'json' : 'yaml';
}

export function parseText(text: string, format: ConfigFormat): ParsedText {
  // Editors on Windows like to start files with a byte order mark; JSON.parse does not.
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  return format === 'json' ? parseJson(body) : parseYaml(body);
}

function parseYaml(text: string): ParsedText {
  const document = parseDocument(text, { prettyErrors: true });
  const [error] = document.errors;
  if (error !== undefined) {
    // The first line names the line and column; the rest is a code frame that does not fit one line.
    const summary = (error.message.split('\n')[0] ?? error.message).replace(/:$/, '');
    return { ok: false, problem: { path: [], message: `YAML syntax error: ${summary}` } };
  }
  return { ok: true, tree: document.toJS() };
}

function parseJson(text: string): ParsedText {
  try {
    return { ok: true, tree: JSON.parse(text) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, problem: { path: [], message: `JSON syntax error: ${withLineAndColumn(message, text)}` } };
  }
}

// Node 20 reports "at position N"; newer versions add the line and column themselves.
function withLineAndColumn(message: string, text: string): string {
  const position = /at position (\d+)/.exec(message)?.[1];
  if (position === undefined || /line \d+/.test(message)) return message;
  const before = text.slice(0, Number(position));
  const line = before.split('\n').length;
  const column = Number(position) - before.lastIndexOf('\n');
  return `${message} (line ${line}, column ${column})`;
}
