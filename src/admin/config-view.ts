// The config in force as the admin API and the status page show it, secrets censored:
// - values under keys that name a secret (clientSecret, privateKey, stateSecret, credentialKey,
//   redisUrl, authorization, *token, *password, apiKey, ...), as in log lines (observe/redact.ts);
//   unlike log lines, a server's `credentials` block is shown, with only its secrets censored, so
//   an operator sees how callers reach the upstream;
// - every value of a `headers` or `env` map (where an upstream's credentials live, under names
//   nobody can list in advance); the names stay;
// - in any URL, the user name and password, and the values of query parameters whose names say
//   secret (`?api_key=...`).
import { CENSOR } from '../observe/redact.js';

const SECRET_KEY = /(?:authorization|cookie|token|secret|password|passwd|api[-_]?key|private[-_]?key|credential[-_]?key|session[-_]?id|redis[-_]?url)$/i;
const SECRET_MAPS = new Set(['headers', 'env', 'requestheaders']);
const SECRET_PARAM = /(?:token|secret|password|passwd|key|signature|sig|auth|credential)/i;

export function redactedConfig(config: unknown): unknown {
  return censor(config, undefined);
}

function censor(value: unknown, key: string | undefined): unknown {
  if (key !== undefined && SECRET_KEY.test(key) && value !== undefined && value !== null && value !== '') return CENSOR;
  if (typeof value === 'string') return censorUrl(value);
  if (Array.isArray(value)) return value.map((item) => censor(item, undefined));
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (key !== undefined && SECRET_MAPS.has(key.toLowerCase())) return Object.fromEntries(entries.map(([name]) => [name, CENSOR]));
    return Object.fromEntries(entries.map(([name, item]) => [name, censor(item, name)]));
  }
  return value;
}

function censorUrl(text: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return text;
  const url = URL.parse(text);
  if (url === null) return text;
  let changed = false;
  if (url.username !== '' || url.password !== '') {
    url.username = 'redacted';
    url.password = '';
    changed = true;
  }
  for (const name of [...new Set(url.searchParams.keys())]) {
    if (SECRET_PARAM.test(name)) {
      url.searchParams.set(name, CENSOR);
      changed = true;
    }
  }
  // An unchanged URL stays as written (URL would normalize it).
  return changed ? url.toString() : text;
}
