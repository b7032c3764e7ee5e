// A directory with one secret file per caller: in practice a mounted Kubernetes Secret, whose keys
// are the files. A caller's claim value (by default `sub`) names their file through a fixed,
// one-to-one escaping, so no caller can name a file of another, a hidden file, or a path outside.
//
// Kubernetes writes a Secret volume atomically: the files at the top are symlinks into `..data/`,
// itself a symlink to a timestamped directory that is swapped on update. Links are therefore
// followed, but where a file resolves to must still be inside the directory's real path.
import { readFile, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';

import type { Principal } from '../auth/principal.js';
import type { Logger } from '../observe/logger.js';
import { CredentialMissingError, CredentialUnavailableError } from './errors.js';

/** The longest key a Kubernetes Secret may have. */
const MAX_KEY_LENGTH = 253;
/**
 * Kubernetes updates a mounted Secret in place (within a minute or two of the change), so a rotated
 * or newly added secret must be seen soon after; a few seconds of caching adds little to that delay
 * and spares a filesystem read on every request of a busy caller.
 */
const DEFAULT_CACHE_MS = 5_000;
/** Expired entries are swept once the cache holds this many callers. */
const SWEEP_AT = 1_024;

// Bytes a Kubernetes Secret key may hold, less `_`: that is the escape character, so it is escaped
// too and the mapping stays one-to-one.
const KEPT = /^[-.a-zA-Z0-9]$/;

/**
 * The file name for a claim value: every UTF-8 byte outside `[-.a-zA-Z0-9]`, `_` itself and a
 * leading `.` become `_` and two lowercase hex digits (`alice@example.com` -> `alice_40example.com`,
 * `..` -> `_2e.`). The result has no `/`, `\`, NUL, or leading dot, and decodes back to exactly one
 * value. `undefined` when the name would be empty or longer than a Secret key may be.
 * (Distinct only on a case-sensitive filesystem, as a Kubernetes node's is.)
 */
export function secretFileName(value: string): string | undefined {
  let name = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const char = String.fromCharCode(byte);
    name += KEPT.test(char) && !(char === '.' && name === '') ? char : `_${byte.toString(16).padStart(2, '0')}`;
  }
  return name === '' || name.length > MAX_KEY_LENGTH ? undefined : name;
}

export interface SecretDirectoryConfig {
  readonly directory: string;
  /** The claim whose value names the caller's file. */
  readonly claim: string;
}

export interface SecretDirectoryOptions {
  /** How long a read (or a missing file) is trusted; 0 reads the file on every call. */
  readonly cacheMs?: number;
  readonly now?: () => number;
  /** Where the directory's path is logged (debug): it is the operator's business, not the caller's. */
  readonly logger?: Logger;
}

export interface CallerSecret {
  readonly secret: string;
  /** The file name the caller's claim maps to, for messages (never the directory's path). */
  readonly name: string;
  /** When the cached read lapses (ms since the epoch): a rotated file is seen after this. */
  readonly expiresAt: number;
}

export interface SecretDirectory {
  /** Throws CredentialMissingError (no claim, no file, an empty file) or CredentialUnavailableError. */
  read(principal: Principal): Promise<CallerSecret>;
}

type Entry = { readonly expiresAt: number; readonly result: Promise<string | undefined> };

export function secretDirectory(
  server: string,
  { directory, claim }: SecretDirectoryConfig,
  { cacheMs = DEFAULT_CACHE_MS, now = Date.now, logger }: SecretDirectoryOptions = {},
): SecretDirectory {
  if (!Number.isFinite(cacheMs) || cacheMs < 0) throw new RangeError(`cacheMs must be a non-negative number of milliseconds, not ${cacheMs}`);
  if (directory === '') throw new RangeError('directory must name a directory');
  const where = `mcpServers.${server}.credentials.perUser.directory`;
  const cache = new Map<string, Entry>();

  function missing(detail: string): CredentialMissingError {
    return new CredentialMissingError(server, detail);
  }

  /** The file's content, `undefined` when there is none; throws CredentialUnavailableError. */
  async function load(name: string): Promise<string | undefined> {
    let root: string;
    try {
      root = await realpath(directory);
    } catch (error) {
      logger?.warn({ server, directory, code: codeOf(error) }, 'per-user secret directory cannot be read');
      throw new CredentialUnavailableError(server, `its secret directory cannot be read (${codeOf(error)})`);
    }
    let target: string;
    try {
      target = await realpath(join(root, name));
    } catch (error) {
      // ENOENT: no such file, or a link to nothing (Kubernetes swaps `..data` atomically, so a
      // dangling link is a file that is gone).
      if (codeOf(error) === 'ENOENT') {
        logger?.debug({ server, directory, file: name }, 'no per-user secret');
        return undefined;
      }
      throw new CredentialUnavailableError(server, `the secret "${name}" in ${where} cannot be read (${codeOf(error)})`);
    }
    if (!inside(root, target)) {
      logger?.warn({ server, directory, file: name }, 'per-user secret is a link out of its directory; not followed');
      throw new CredentialUnavailableError(server, `the secret "${name}" in ${where} is a link that leads out of the directory, which is not followed`);
    }
    let content: string;
    try {
      content = await readFile(target, 'utf8');
    } catch (error) {
      const code = codeOf(error);
      if (code === 'ENOENT') return undefined; // removed between the two calls
      throw new CredentialUnavailableError(server, `the secret "${name}" in ${where} cannot be read (${code === 'EISDIR' ? 'it is a directory' : code})`);
    }
    const secret = content.replace(/\r?\n$/, '');
    return secret === '' ? undefined : secret;
  }

  function cached(name: string): Entry {
    const at = now();
    const hit = cache.get(name);
    if (hit && hit.expiresAt > at) return hit;
    if (cache.size >= SWEEP_AT) for (const [key, entry] of cache) if (entry.expiresAt <= at) cache.delete(key);
    // The promise is cached, so callers asking at once share one read.
    const entry: Entry = { expiresAt: at + cacheMs, result: load(name) };
    cache.set(name, entry);
    // An outage is not remembered: the next call tries again.
    entry.result.catch(() => cache.get(name) === entry && cache.delete(name));
    return entry;
  }

  return {
    async read(principal) {
      const value = claimValue(principal, claim);
      if (value === undefined) throw missing(`your token has no ${claim} claim that names a secret in ${where}`);
      const name = secretFileName(value);
      if (name === undefined) throw missing(`your ${claim} cannot name a secret in ${where} (empty, or longer than ${MAX_KEY_LENGTH} characters once escaped)`);
      const { expiresAt, result } = cached(name);
      const secret = await result;
      if (secret === undefined) throw missing(`no secret named "${name}" for your ${claim} in ${where}`);
      return { secret, name, expiresAt };
    },
  };
}

function claimValue(principal: Principal, claim: string): string | undefined {
  const value = principal.claims[claim] ?? (claim === 'sub' ? principal.sub : undefined);
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * Whether `target` lies strictly below `root`. Not `relative().startsWith('..')`: Kubernetes' own
 * `..data` and `..2026_11_22_...` entries start with two dots and are inside.
 */
function inside(root: string, target: string): boolean {
  const path = relative(root, target);
  return path !== '' && !isAbsolute(path) && path !== '..' && !path.startsWith(`..${sep}`);
}

function codeOf(error: unknown): string {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : 'unreadable';
}
