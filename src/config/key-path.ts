// Key paths as users read them in messages: `mcpServers.search.headers.Authorization`,
// `policy.rules[0].allow`, and `headers["x.y"]` for a key that would otherwise be ambiguous.

export type KeyPath = readonly PropertyKey[];

const PLAIN_KEY = /^[A-Za-z0-9_-]+$/;

export function formatKeyPath(path: KeyPath): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (typeof segment === 'string' && PLAIN_KEY.test(segment)) text += text === '' ? segment : `.${segment}`;
    else text += `[${JSON.stringify(String(segment))}]`;
  }
  return text;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A problem found before formatting, while the path is still a list of keys. */
export interface PathProblem {
  readonly path: KeyPath;
  readonly message: string;
}
