// The config in force as the admin API shows it: secrets censored as in log lines (observe/redact.ts:
// values under keys that name a credential, every value of `headers` and `env`), and besides, the
// user name and password of any URL and the values of URL query parameters whose names say secret
// (`?api_key=...`), which an upstream's `url` may carry.
import { CENSOR, redactSecrets } from '../observe/redact.js';

const SECRET_PARAM = /(?:token|secret|password|passwd|key|signature|sig|auth|credential)/i;

export function redactedConfig<T>(config: T): T {
  return censorUrls(redactSecrets(config)) as T;
}

function censorUrls(value: unknown): unknown {
  if (typeof value === 'string') return censorUrl(value);
  if (Array.isArray(value)) return value.map(censorUrls);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, censorUrls(item)]));
  }
  return value;
}

function censorUrl(text: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return text;
  const url = URL.parse(text);
  if (url === null) return text;
  let changed = false;
  if (url.username !== '' || url.password !== '') {
    url.username = CENSOR;
    url.password = '';
    changed = true;
  }
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_PARAM.test(name)) {
      url.searchParams.set(name, CENSOR);
      changed = true;
    }
  }
  // Unchanged text stays as written (URL would normalize it, and ${VAR} defaults live in there).
  return changed ? url.toString() : text;
}
