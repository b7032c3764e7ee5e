// `${VAR}` and `${VAR:-default}` from the environment. This runs on the parsed tree, string by
// string, rather than on the raw text, for three reasons: a reference in a YAML comment is never
// evaluated; an unset variable can be reported with the key path where it is used; and a value
// cannot break the file's syntax (a password with a quote or a newline stays one string).
// Keys are not interpolated. The result is not interpolated again, and references do not nest.
// `${env:VAR}` is read as `${VAR}`: VS Code and Cursor write environment references that way, and
// their files are valid configs as they are.
//
// Numbers: after interpolation `port: ${PORT}` holds the string "8080". The schema converts clean
// numeric strings where, and only where, it expects a number (schema.ts), so this works the same in
// YAML and JSON and a string field never turns into a number by surprise.
import { isPlainObject, type KeyPath, type PathProblem } from './key-path.js';

const REFERENCE_BODY = /^(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;

export interface StringInterpolation {
  readonly value: string;
  /** Variables referenced without a default and not set. */
  readonly unset: readonly string[];
  /** Human-readable reasons for references that cannot be read (`${}`, a missing `}`). */
  readonly malformed: readonly string[];
}

/**
 * Shell semantics: `${VAR}` is VAR's value, set but empty included; `${VAR:-default}` is the default
 * when VAR is unset or empty; `$${` is a literal `${`.
 */
export function interpolateString(text: string, env: NodeJS.ProcessEnv): StringInterpolation {
  const unset: string[] = [];
  const malformed: string[] = [];
  let value = '';
  let index = 0;
  while (index < text.length) {
    if (text.startsWith('$${', index)) {
      value += '${';
      index += 3;
      continue;
    }
    if (!text.startsWith('${', index)) {
      value += text[index];
      index += 1;
      continue;
    }
    const close = text.indexOf('}', index + 2);
    if (close === -1) {
      malformed.push('"${" has no closing "}" (write "$${" for a literal "${")');
      value += text.slice(index);
      break;
    }
    const body = text.slice(index + 2, close);
    const match = REFERENCE_BODY.exec(body);
    if (match === null) {
      malformed.push(`"\${${body}}" is not \${NAME} or \${NAME:-default} (write "$\${" for a literal "\${")`);
    } else {
      const [, name = '', fallback] = match;
      const current = env[name];
      if (fallback !== undefined) value += current === undefined || current === '' ? fallback : current;
      else if (current === undefined) unset.push(name);
      else value += current;
    }
    index = close + 1;
  }
  return { value, unset, malformed };
}

export interface TreeInterpolation<T> {
  /** The same shape as the input: only string values change. */
  readonly tree: T;
  readonly problems: readonly PathProblem[];
}

/** Interpolates every string value in a parsed config; an unset reference becomes "" and a problem. */
export function interpolateTree<T>(tree: T, env: NodeJS.ProcessEnv): TreeInterpolation<T> {
  const problems: PathProblem[] = [];
  const walk = (node: unknown, at: KeyPath): unknown => {
    if (typeof node === 'string') {
      const { value, unset, malformed } = interpolateString(node, env);
      for (const name of unset) problems.push({ path: at, message: `environment variable ${name} is not set` });
      for (const reason of malformed) problems.push({ path: at, message: reason });
      return value;
    }
    if (Array.isArray(node)) return node.map((item, index) => walk(item, [...at, index]));
    // fromEntries defines own properties, so a "__proto__" key cannot reach a prototype.
    if (isPlainObject(node)) return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, walk(item, [...at, key])]));
    return node;
  };
  return { tree: walk(tree, []) as T, problems };
}
