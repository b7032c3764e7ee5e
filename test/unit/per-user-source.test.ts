import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { principalFromClaims } from '../../src/auth/principal-from-claims.js';
import type { PerUserConfig } from '../../src/config/credentials.js';
import { CredentialMissingError, CredentialUnavailableError } from '../../src/credentials/errors.js';
import { perUserSource } from '../../src/credentials/per-user-source.js';

const alice = principalFromClaims({ sub: 'alice@example.com' });
const FILE = 'alice_40example.com';

describe('the perUser credential source', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'switchboard-peruser-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const config = (extra: Partial<PerUserConfig> = {}): PerUserConfig => ({ directory: dir, claim: 'sub', ...extra });
  const failure = (promise: Promise<unknown>) => promise.then(() => expect.unreachable('it resolved'), (error: unknown) => error as Error);

  it('sends an HTTP upstream the caller\'s secret as a bearer token by default', async () => {
    writeFileSync(join(dir, FILE), 'ghp_alice\n');
    const source = perUserSource('github', 'http', config(), { now: () => 1_000, cacheMs: 2_000 });
    expect(source.mode).toBe('perUser');
    await expect(source.resolve(alice)).resolves.toEqual({ headers: { Authorization: 'Bearer ghp_alice' }, env: {}, expiresAt: 3_000 });
  });

  it('puts the secret in the configured header and format, literally', async () => {
    writeFileSync(join(dir, FILE), "k$&y$'");
    await expect(perUserSource('jira', 'http', config({ header: 'X-Api-Key' })).resolve(alice)).resolves.toMatchObject({ headers: { 'X-Api-Key': "k$&y$'" } });
    await expect(perUserSource('jira', 'http', config({ header: 'Authorization', format: 'Token {secret}' })).resolve(alice)).resolves.toMatchObject({
      headers: { Authorization: "Token k$&y$'" },
    });
  });

  it('gives a stdio upstream the secret in its environment, line breaks and all', async () => {
    writeFileSync(join(dir, FILE), '-----BEGIN KEY-----\nabc\n-----END KEY-----\n');
    await expect(perUserSource('db', 'stdio', config({ env: 'DB_KEY' })).resolve(alice)).resolves.toMatchObject({
      headers: {},
      env: { DB_KEY: '-----BEGIN KEY-----\nabc\n-----END KEY-----' },
    });
  });

  it.each([
    ['line\nbreak', 'it has a line break inside'],
    ['carriage\rreturn', 'it has a line break inside'],
    ['nul\0byte', 'it has a character an HTTP header cannot carry'],
    ['naïve', 'it has a character an HTTP header cannot carry'],
    [' padded', 'it begins or ends with whitespace'],
    ['padded\t', 'it begins or ends with whitespace'],
  ])('calls a secret an HTTP header cannot carry malformed, without showing it (%j)', async (secret, why) => {
    writeFileSync(join(dir, FILE), secret);
    const error = await failure(perUserSource('github', 'http', config()).resolve(alice));
    expect(error).toBeInstanceOf(CredentialUnavailableError);
    expect(error.message).toContain(`upstream "github" cannot be reached as you: the secret file "${FILE}" in mcpServers.github.credentials.perUser.directory is malformed: ${why}`);
    expect(error.message).not.toContain(secret);
    expect(error.message).not.toContain(dir);
  });

  it('calls a secret with a NUL byte malformed for a stdio upstream', async () => {
    writeFileSync(join(dir, FILE), 'nul\0byte');
    const error = await failure(perUserSource('db', 'stdio', config({ env: 'DB_KEY' })).resolve(alice));
    expect(error).toBeInstanceOf(CredentialUnavailableError);
    expect(error.message).toContain('is malformed: it has a NUL byte');
  });

  it('passes on a missing secret as missing', async () => {
    await expect(perUserSource('github', 'http', config()).resolve(alice)).rejects.toBeInstanceOf(CredentialMissingError);
  });

  it('refuses a stdio source without env at construction', () => {
    expect(() => perUserSource('db', 'stdio', config())).toThrow(/needs env/);
  });
});
