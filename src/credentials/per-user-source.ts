// perUser: each caller's own secret, kept by an operator in a directory (a mounted Kubernetes
// Secret, one key per caller), presented to the upstream as an HTTP header or, to a stdio server,
// in the environment of the caller's own process.
import type { PerUserConfig } from '../config/credentials.js';
import { perUserHeader, SECRET_PLACEHOLDER } from '../config/credentials.js';
import type { CredentialSource, UpstreamCredential } from './types.js';
import { CredentialUnavailableError } from './errors.js';
import { secretDirectory, type SecretDirectoryOptions } from './secret-directory.js';

export type PerUserSourceOptions = SecretDirectoryOptions;

// What an HTTP field value may carry (RFC 9110 section 5.5), less obs-text: a secret read as UTF-8
// has no single byte form a server would agree on, so only printable ASCII, space and tab.
const LINE_BREAK = /[\r\n]/;
const NOT_HEADER_SAFE = /[^\t\x20-\x7e]/;
const EDGE_WHITESPACE = /^[\t ]|[\t ]$/;

export function perUserSource(server: string, kind: 'stdio' | 'http', config: PerUserConfig, options: PerUserSourceOptions = {}): CredentialSource {
  const directory = secretDirectory(server, config, options);
  const where = `mcpServers.${server}.credentials.perUser.directory`;
  const malformed = (name: string, why: string) => new CredentialUnavailableError(server, `the secret file "${name}" in ${where} is malformed: ${why}`);

  let present: (secret: string, name: string) => Pick<UpstreamCredential, 'headers' | 'env'>;
  if (kind === 'http') {
    const header = perUserHeader(config);
    present = (secret, name) => {
      // Checked on the secret alone, so the reason never depends on (or reveals) the format.
      if (LINE_BREAK.test(secret)) throw malformed(name, 'it has a line break inside, which an HTTP header cannot carry');
      if (NOT_HEADER_SAFE.test(secret)) throw malformed(name, 'it has a character an HTTP header cannot carry (only printable ASCII, space and tab)');
      // Servers strip what surrounds a field value and split `Bearer  x` on whitespace: the secret
      // they saw would not be the one in the file (most likely a stray space when it was pasted).
      if (EDGE_WHITESPACE.test(secret)) throw malformed(name, 'it begins or ends with whitespace, which an HTTP header would lose');
      // A function, so a `$&` or `$'` in the secret is not read as a replacement pattern.
      return { headers: { [header.name]: header.format.replaceAll(SECRET_PLACEHOLDER, () => secret) }, env: {} };
    };
  } else {
    const variable = config.env;
    if (variable === undefined) throw new RangeError(`perUser for the stdio server "${server}" needs env: the variable the secret is passed in`);
    present = (secret, name) => {
      // Line breaks are fine in the environment (a PEM key, a JSON credential); NUL is not.
      if (secret.includes('\0')) throw malformed(name, 'it has a NUL byte, which an environment variable cannot carry');
      return { headers: {}, env: { [variable]: secret } };
    };
  }

  return {
    mode: 'perUser',
    async resolve(principal) {
      const { secret, name, expiresAt } = await directory.read(principal);
      return { ...present(secret, name), expiresAt };
    },
  };
}
