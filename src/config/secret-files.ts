// Secrets mounted as files (Kubernetes and Docker secrets) for `${VAR}`: when VAR is not set but
// VAR_FILE is, `${VAR}` is the content of the file VAR_FILE names, without its final newline. This
// is the convention of the official Docker images (POSTGRES_PASSWORD_FILE), so an upstream's
// `Authorization: "Bearer ${SEARCH_TOKEN}"` works with SEARCH_TOKEN_FILE=/run/secrets/search-token
// and the token never sits in the environment or the config file.
import { readFileSync } from 'node:fs';

export interface SecretFileEnv {
  /** The environment as interpolation sees it: VAR falls back to the file VAR_FILE names. */
  readonly env: NodeJS.ProcessEnv;
  /** Files that were named but could not be read, for the config's problem list. */
  readonly problems: readonly string[];
}

/** Files are read when, and only when, a reference asks for their variable. */
export function withSecretFiles(env: NodeJS.ProcessEnv, read: (path: string) => string = (path) => readFileSync(path, 'utf8')): SecretFileEnv {
  const problems: string[] = [];
  const cache = new Map<string, string | undefined>();
  const proxy = new Proxy(env, {
    get(target, name) {
      const value: unknown = Reflect.get(target, name);
      if (value !== undefined || typeof name !== 'string' || name.endsWith('_FILE')) return value;
      const file = target[`${name}_FILE`];
      if (file === undefined || file === '') return undefined;
      if (!cache.has(name)) {
        try {
          cache.set(name, read(file).replace(/\r?\n$/, ''));
        } catch (error) {
          const reason = error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
          problems.push(`${name}_FILE names ${file}, which cannot be read (${reason})`);
          cache.set(name, undefined);
        }
      }
      return cache.get(name);
    },
  });
  return { env: proxy, problems };
}
