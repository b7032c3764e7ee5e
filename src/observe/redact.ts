// What never reaches a log line, whoever logs what: values under keys that name a credential
// (Authorization, cookies, tokens, secrets, passwords, API keys, session ids, the Redis URL, which
// may hold a password), and every value of a `headers` or `env` map (an upstream's config keeps its
// credentials there, under names nobody can list in advance). At any depth, so a whole config
// logged by mistake still keeps its secrets. Every other string passes the text redaction
// (redact-text.ts): an error message may quote a URL with its password or a configured API key.
//
// Why not pino's `redact` paths: they match fixed paths, and each leading wildcard (`*.token`) adds
// a walk per line; covering a few depths cost hundreds of times what this walk does in a probe.
// This walk reads every key once and copies only what it censors (the caller's object is never
// changed).

import { CENSOR, redactText } from './redact-text.js';

export { CENSOR };

const SECRET_KEY = /(?:authorization|cookie|token|secret|password|passwd|api[-_]?key|private[-_]?key|credentials?|credential[-_]?key|state[-_]?secret|session[-_]?id|redis[-_]?url)$/i;
/** Maps whose every value is a secret; their keys stay, so a reader sees which ones were set. */
const SECRET_MAPS = new Set(['headers', 'env', 'requestheaders']);
/** Deep enough for a config (config.mcpServers.<name>.headers.<header>) and then some. */
const MAX_DEPTH = 8;

/** The value with secrets censored: the same object when there was nothing to censor. */
export function redactSecrets<T>(value: T): T {
  return isWalkable(value) ? (walk(value, 0) as T) : value;
}

function walk(value: object, depth: number): object {
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      const censored = typeof item === 'string' ? redactText(item) : depth < MAX_DEPTH && isWalkable(item) ? walk(item, depth + 1) : item;
      if (censored !== item) {
        copy ??= value.slice();
        copy[index] = censored;
      }
    }
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    const item = record[key];
    let censored = item;
    if (SECRET_KEY.test(key)) {
      if (item !== undefined && item !== null && item !== '') censored = CENSOR;
    } else if (typeof item === 'string') {
      censored = redactText(item);
    } else if (isWalkable(item)) {
      if (SECRET_MAPS.has(key.toLowerCase()) && !Array.isArray(item)) censored = censorValues(item as Record<string, unknown>);
      else if (depth < MAX_DEPTH) censored = walk(item, depth + 1);
    }
    if (censored !== item) {
      copy ??= { ...record };
      copy[key] = censored;
    }
  }
  return copy ?? value;
}

function censorValues(map: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(map).map((key) => [key, CENSOR]));
}

/** Plain objects and arrays: what callers build for log lines. Errors, Buffers, Dates pass as they are. */
function isWalkable(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return true;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
