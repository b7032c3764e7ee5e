// The one redaction of text that leaves the gateway: log lines (logger.ts), /readyz, the admin API
// and status page (an upstream's last error), and the errors clients get (gateway/errors.ts). Error
// texts are not ours to shape: a socket error quotes the URL it was given, an upstream echoes the
// API key it refused, fetch names a URL with its password. So every such text passes here, and
// three things never come out:
// - the user info of a URL (`http://ops:pw@host` -> `http://[redacted]@host`);
// - the value of a `name=value` pair whose name ends with one of SECRET_PARAM_NAMES, in a query
//   string or anywhere else (`?access_token=...`, `X-Amz-Signature=...`, `--password=...`);
// - every value the config in force holds as a secret (configuredSecrets below): header values of
//   servers, env values whose name says secret or whose value looks like a credential, values
//   under keys that name a secret (client secrets, keys, tokens), and the password of any URL in
//   the config (the Redis URL's among them), wherever they appear in the text. An env map also
//   holds settings (`MODE=modern`, `LOG_DIR=/data`): censored by value, they would blank the same
//   words out of every log line and message.
// docs/guides/security.md lists the same rules for operators.

/** What stands where a secret was, in text and in log fields alike. */
export const CENSOR = '[redacted]';

/** The documented list: a parameter whose name ends with one of these (any case) is a secret. */
export const SECRET_PARAM_NAMES = [
  'token',
  'secret',
  'password',
  'passwd',
  'pwd',
  'key',
  'sig',
  'signature',
  'credential',
  'credentials',
  'auth',
  'sessionid',
  'session_id',
] as const;

const USER_INFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi;
// A name is letters, digits, `_`, `-` and `.` (`X-Amz-Signature`, `api_key`); the value runs to the
// next separator of a query string or of prose.
const SECRET_PARAM = new RegExp(`(^|[^\\w.-])([\\w.-]*(?:${SECRET_PARAM_NAMES.join('|')}))=([^\\s&#"'<>;,]+)`, 'gi');

/** The text with URL user info, secret parameters and the configured secrets censored. */
export function redactText(text: string): string {
  let clean = text;
  if (clean.includes('://')) clean = clean.replace(USER_INFO, `$1${CENSOR}@`);
  if (clean.includes('=')) clean = clean.replace(SECRET_PARAM, `$1$2=${CENSOR}`);
  for (const secret of censoredValues) {
    if (clean.includes(secret)) clean = clean.split(secret).join(CENSOR);
  }
  return clean;
}

/**
 * Values shorter than this are not censored from text: `1`, `true`, `debug` in an env map would
 * blank out every digit and word of every message, and no credential is that short.
 */
export const MIN_SECRET_LENGTH = 6;

/** The secrets of one running gateway's config, censored from text until released. */
export interface ConfiguredSecrets {
  /** Adds a config's secrets (a reload's): those of the previous one stay censored, since they were secrets. */
  add(config: unknown): void;
  /** At the gateway's end: its secrets are its own, and tests run several gateways in one process. */
  release(): void;
}

const holders = new Set<Set<string>>();
/** Longest first, so a secret that contains another is censored whole. */
let censoredValues: readonly string[] = [];

export function configuredSecrets(config: unknown): ConfiguredSecrets {
  const values = new Set<string>();
  holders.add(values);
  const secrets: ConfiguredSecrets = {
    add(next) {
      collectSecrets(next, undefined, values, 0);
      refresh();
    },
    release() {
      holders.delete(values);
      refresh();
    },
  };
  secrets.add(config);
  return secrets;
}

function refresh(): void {
  const all = new Set<string>();
  for (const values of holders) for (const value of values) all.add(value);
  censoredValues = [...all].sort((a, b) => b.length - a.length);
}

// The same keys and maps as the log lines' walk (redact.ts) and the admin config view, so what
// those censor by key is what text censors by value.
// Not the Redis URL as a whole (the log walk censors that field by its key): its password is what
// is secret, and the outage lines must still say which Redis is out.
const SECRET_KEY = /(?:authorization|cookie|token|secret|password|passwd|api[-_]?key|private[-_]?key|credential[-_]?key|state[-_]?secret|session[-_]?id)$/i;
const SECRET_MAPS = new Set(['headers', 'requestheaders']);
/** A process environment: its secrets are told by name or by their look, not all its values. */
const ENV_MAPS = new Set(['env']);
// An env name that says secret: the keys above, or a name ending as SECRET_PARAM_NAMES do, or a
// personal access token (`GITHUB_PAT`).
const SECRET_ENV_NAME = new RegExp(`(?:${SECRET_PARAM_NAMES.join('|')}|[-_]pat)$`, 'i');
/** A value that looks like a credential whatever its name: long, unbroken, letters and digits mixed. */
function looksLikeCredential(value: string): boolean {
  return value.length >= 16 && !/\s/.test(value) && /[A-Za-z]/.test(value) && /\d/.test(value);
}
const MAX_DEPTH = 10;

function collectSecrets(value: unknown, key: string | undefined, into: Set<string>, depth: number): void {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return;
  for (const [name, item] of Object.entries(value)) {
    if (typeof item === 'string') {
      const map = key?.toLowerCase();
      const envSecret = map !== undefined && ENV_MAPS.has(map) && (SECRET_ENV_NAME.test(name) || looksLikeCredential(item));
      if (SECRET_KEY.test(name) || envSecret || (map !== undefined && SECRET_MAPS.has(map))) addSecret(item, into);
      else addUrlSecrets(item, into);
    } else {
      collectSecrets(item, name, into, depth + 1);
    }
  }
}

function addSecret(value: string, into: Set<string>): void {
  if (value.length >= MIN_SECRET_LENGTH) into.add(value);
  // `Bearer <token>`, `Basic <base64>`: the credential alone may be what an error quotes.
  const credential = /^[A-Za-z][\w-]*\s+(\S+)$/.exec(value)?.[1];
  if (credential !== undefined && credential.length >= MIN_SECRET_LENGTH) into.add(credential);
  addUrlSecrets(value, into);
}

/** The password of a URL's user info, which a text may quote decoded or alone. */
function addUrlSecrets(value: string, into: Set<string>): void {
  if (!value.includes('@') || !value.includes('://')) return;
  const url = URL.parse(value);
  if (url === null || url.password === '') return;
  for (const password of [url.password, safeDecode(url.password)]) if (password.length >= MIN_SECRET_LENGTH) into.add(password);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
