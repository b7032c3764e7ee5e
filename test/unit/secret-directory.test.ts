import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { principalFromClaims } from '../../src/auth/principal-from-claims.js';
import type { Principal } from '../../src/auth/principal.js';
import { CredentialMissingError, CredentialUnavailableError } from '../../src/credentials/errors.js';
import { secretDirectory, secretFileName, type SecretDirectoryOptions } from '../../src/credentials/secret-directory.js';

const caller = (sub: string, claims: Record<string, unknown> = {}): Principal => principalFromClaims({ sub, ...claims });

/** The inverse of secretFileName: that it exists is what makes the mapping one-to-one. */
function decode(name: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < name.length; i += 1) {
    if (name[i] === '_') {
      bytes.push(parseInt(name.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(name.charCodeAt(i));
  }
  return Buffer.from(bytes).toString('utf8');
}

describe('the file name a claim value maps to', () => {
  it.each([
    ['alice', 'alice'],
    ['alice@example.com', 'alice_40example.com'],
    ['snake_case', 'snake_5fcase'],
    ['.', '_2e'],
    ['..', '_2e.'],
    ['.hidden', '_2ehidden'],
    ['../../etc/passwd', '_2e._2f.._2fetc_2fpasswd'],
    ['a/b', 'a_2fb'],
    ['a\\b', 'a_5cb'],
    ['a\0b', 'a_00b'],
    ['auth0|5f7c', 'auth0_7c5f7c'],
    ['Zoë', 'Zo_c3_ab'],
    ['😀', '_f0_9f_98_80'],
  ])('maps %j to %j', (value, name) => {
    expect(secretFileName(value)).toBe(name);
  });

  it('only ever yields a Kubernetes Secret key that is not a hidden file', () => {
    for (const value of ['..', '.', '../x', '\0', ' ', '..data', '_2e', '\u202e', '\ud800', 'x'.repeat(253)]) {
      const name = secretFileName(value)!;
      expect(name).toMatch(/^[-._a-zA-Z0-9]{1,253}$/);
      expect(name.startsWith('.')).toBe(false);
    }
  });

  it('decodes back to the value it came from, so no two values share a file', () => {
    // Every string of up to four characters from an alphabet of the characters that matter.
    const alphabet = ['_', '.', 'a', '5', 'f', '/', '2', 'e', 'é'];
    let values = [''];
    const seen = new Map<string, string>();
    for (let length = 1; length <= 4; length += 1) {
      values = values.flatMap((prefix) => alphabet.map((char) => prefix + char));
      for (const value of values) {
        const name = secretFileName(value)!;
        expect(decode(name)).toBe(value);
        expect(seen.get(name) ?? value).toBe(value);
        seen.set(name, value);
      }
    }
    expect(seen.size).toBe(alphabet.length ** 4 + alphabet.length ** 3 + alphabet.length ** 2 + alphabet.length);
  });

  it('has no name for an empty value, nor for one longer than 253 characters once escaped', () => {
    expect(secretFileName('')).toBeUndefined();
    expect(secretFileName('a'.repeat(253))).toBe('a'.repeat(253));
    expect(secretFileName('a'.repeat(254))).toBeUndefined();
    expect(secretFileName('@'.repeat(84))).toHaveLength(252);
    expect(secretFileName('@'.repeat(85))).toBeUndefined();
  });
});

describe('a directory of per-user secrets', () => {
  let root: string;
  let dir: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'switchboard-secrets-'));
    dir = join(root, 'secrets');
    mkdirSync(dir);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const open = (options: SecretDirectoryOptions & { claim?: string } = {}) => secretDirectory('github', { directory: dir, claim: options.claim ?? 'sub' }, options);
  const failure = (promise: Promise<unknown>) => promise.then(() => expect.unreachable('it resolved'), (error: unknown) => error);

  /** What the kubelet writes for a Secret volume: a timestamped directory, `..data` and links. */
  function kubernetesLayout(files: Record<string, string>): void {
    const version = '..2026_11_22_11_57_19.1234567';
    mkdirSync(join(dir, version));
    for (const [key, content] of Object.entries(files)) writeFileSync(join(dir, version, key), content);
    symlinkSync(version, join(dir, '..data'));
    for (const key of Object.keys(files)) symlinkSync(join('..data', key), join(dir, key));
  }

  it('reads the caller\'s file through the links of a mounted Kubernetes Secret, without its final newline', async () => {
    kubernetesLayout({ alice: 'ghp_alice\n', 'bob_40example.com': 'ghp_bob' });
    const secrets = open({ now: () => 1_000 });
    await expect(secrets.read(caller('alice'))).resolves.toEqual({ secret: 'ghp_alice', name: 'alice', expiresAt: 6_000 });
    await expect(secrets.read(caller('bob@example.com'))).resolves.toMatchObject({ secret: 'ghp_bob', name: 'bob_40example.com' });
  });

  it('names the caller by another claim when told to, and a numeric claim by its digits', async () => {
    writeFileSync(join(dir, 'alice_40example.com'), 'by-email');
    writeFileSync(join(dir, '4711'), 'by-number');
    await expect(open({ claim: 'email' }).read(caller('u-1', { email: 'alice@example.com' }))).resolves.toMatchObject({ secret: 'by-email' });
    await expect(open({ claim: 'uid' }).read(caller('u-1', { uid: 4711 }))).resolves.toMatchObject({ secret: 'by-number' });
  });

  it('finds nothing for a caller without the claim, or with one that is not a string or a number', async () => {
    writeFileSync(join(dir, 'true'), 'x');
    writeFileSync(join(dir, '_5b_5d'), 'x');
    for (const claims of [{}, { email: true }, { email: ['a'] }, { email: null }, { email: { id: 'a' } }]) {
      const error = await failure(open({ claim: 'email' }).read(caller('u-1', claims)));
      expect(error).toBeInstanceOf(CredentialMissingError);
      expect((error as Error).message).toContain('your token has no email claim');
    }
  });

  it('says which file name it looked for, without the directory\'s path', async () => {
    const error = await failure(open().read(caller('carol@example.com')));
    expect(error).toBeInstanceOf(CredentialMissingError);
    expect((error as Error).message).toBe(
      'upstream "github" needs a credential of your own and there is none: no secret named "carol_40example.com" for your sub in mcpServers.github.credentials.perUser.directory',
    );
    expect((error as Error).message).not.toContain(root);
  });

  it('takes an empty file for no secret', async () => {
    writeFileSync(join(dir, 'alice'), '\n');
    await expect(open().read(caller('alice'))).rejects.toBeInstanceOf(CredentialMissingError);
  });

  it.each(['../outside/secret', '..', '.', '..data/alice', 'a/b', 'a\\b', 'alice\0', '/etc/hostname'])(
    'never lets the subject %j reach past its own escaped name',
    async (sub) => {
      kubernetesLayout({ alice: 'ghp_alice' });
      mkdirSync(join(root, 'outside'));
      writeFileSync(join(root, 'outside', 'secret'), 'not yours');
      mkdirSync(join(dir, 'a'));
      writeFileSync(join(dir, 'a', 'b'), 'not yours');
      const error = await failure(open().read(caller(sub)));
      expect(error).toBeInstanceOf(CredentialMissingError);
      expect((error as Error).message).toContain(`"${secretFileName(sub)}"`);
    },
  );

  it('reads the file whose name is the escaped subject, emoji and all', async () => {
    writeFileSync(join(dir, 'a_2fb'), 'slash');
    writeFileSync(join(dir, '_f0_9f_98_80'), 'grin');
    writeFileSync(join(dir, '_2e._2f.._2fetc_2fpasswd'), 'odd but yours');
    await expect(open().read(caller('a/b'))).resolves.toMatchObject({ secret: 'slash' });
    await expect(open().read(caller('😀'))).resolves.toMatchObject({ secret: 'grin' });
    await expect(open().read(caller('../../etc/passwd'))).resolves.toMatchObject({ secret: 'odd but yours' });
  });

  it('refuses a link that leads out of the directory, and does not read what it points at', async () => {
    mkdirSync(join(root, 'outside'));
    writeFileSync(join(root, 'outside', 'secret'), 'outside-content');
    symlinkSync(join(root, 'outside', 'secret'), join(dir, 'mallory'));
    symlinkSync('../outside/secret', join(dir, 'trudy'));
    for (const sub of ['mallory', 'trudy']) {
      const error = await failure(open().read(caller(sub)));
      expect(error).toBeInstanceOf(CredentialUnavailableError);
      expect((error as Error).message).toContain(`the secret "${sub}" in mcpServers.github.credentials.perUser.directory is a link that leads out of the directory`);
      expect((error as Error).message).not.toContain('outside-content');
    }
  });

  it('refuses a `..data` that leads out of the directory', async () => {
    mkdirSync(join(root, 'elsewhere'));
    writeFileSync(join(root, 'elsewhere', 'alice'), 'outside-content');
    symlinkSync(join(root, 'elsewhere'), join(dir, '..data'));
    symlinkSync('..data/alice', join(dir, 'alice'));
    await expect(open().read(caller('alice'))).rejects.toBeInstanceOf(CredentialUnavailableError);
  });

  it('follows a link to another file inside the directory, and a directory that is itself a link', async () => {
    writeFileSync(join(dir, 'alice'), 'shared');
    symlinkSync('alice', join(dir, 'alice-laptop'));
    symlinkSync(dir, join(root, 'mounted'));
    const secrets = secretDirectory('github', { directory: join(root, 'mounted'), claim: 'sub' });
    await expect(secrets.read(caller('alice-laptop'))).resolves.toMatchObject({ secret: 'shared' });
  });

  it('is unavailable, not missing, when the directory is gone or the file cannot be read', async () => {
    symlinkSync('loop-b', join(dir, 'loop-a'));
    symlinkSync('loop-a', join(dir, 'loop-b'));
    mkdirSync(join(dir, 'dora'));
    writeFileSync(join(root, 'a-file'), 'x');
    const cases: [() => Promise<unknown>, string][] = [
      [() => open().read(caller('loop-a')), 'the secret "loop-a" in mcpServers.github.credentials.perUser.directory cannot be read (ELOOP)'],
      [() => open().read(caller('dora')), 'the secret "dora" in mcpServers.github.credentials.perUser.directory cannot be read (it is a directory)'],
      [() => secretDirectory('github', { directory: join(root, 'gone'), claim: 'sub' }).read(caller('alice')), 'its secret directory cannot be read (ENOENT)'],
      [() => secretDirectory('github', { directory: join(root, 'a-file'), claim: 'sub' }).read(caller('alice')), 'cannot be read (ENOTDIR)'],
    ];
    for (const [read, reason] of cases) {
      const error = await failure(read());
      expect(error).toBeInstanceOf(CredentialUnavailableError);
      expect((error as Error).message).toContain(reason);
      expect((error as Error).message).not.toContain(root);
    }
  });

  it('sees a changed file, and a new one, once the cached read has lapsed', async () => {
    let now = 0;
    writeFileSync(join(dir, 'alice'), 'v1');
    const secrets = open({ cacheMs: 5_000, now: () => now });
    await expect(secrets.read(caller('alice'))).resolves.toMatchObject({ secret: 'v1', expiresAt: 5_000 });
    await expect(secrets.read(caller('bob'))).rejects.toBeInstanceOf(CredentialMissingError);

    writeFileSync(join(dir, 'alice'), 'v2');
    writeFileSync(join(dir, 'bob'), 'new');
    now = 4_999;
    await expect(secrets.read(caller('alice'))).resolves.toMatchObject({ secret: 'v1', expiresAt: 5_000 });
    await expect(secrets.read(caller('bob'))).rejects.toBeInstanceOf(CredentialMissingError);

    now = 5_000;
    await expect(secrets.read(caller('alice'))).resolves.toMatchObject({ secret: 'v2', expiresAt: 10_000 });
    await expect(secrets.read(caller('bob'))).resolves.toMatchObject({ secret: 'new' });
  });

  it('sees a Kubernetes update, which swaps `..data` to a new timestamped directory', async () => {
    let now = 0;
    kubernetesLayout({ alice: 'v1' });
    const secrets = open({ now: () => now });
    await expect(secrets.read(caller('alice'))).resolves.toMatchObject({ secret: 'v1' });
    mkdirSync(join(dir, '..2026_11_22_12_00_00.7654321'));
    writeFileSync(join(dir, '..2026_11_22_12_00_00.7654321', 'alice'), 'v2');
    // The kubelet's atomic swap: a new link, renamed over the old one.
    symlinkSync('..2026_11_22_12_00_00.7654321', join(dir, '..data_tmp'));
    renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
    now = 60_000;
    await expect(secrets.read(caller('alice'))).resolves.toMatchObject({ secret: 'v2' });
  });

  it('does not remember an outage: the next call reads again', async () => {
    const secrets = secretDirectory('github', { directory: join(root, 'later'), claim: 'sub' }, { now: () => 0 });
    await expect(secrets.read(caller('alice'))).rejects.toBeInstanceOf(CredentialUnavailableError);
    mkdirSync(join(root, 'later'));
    writeFileSync(join(root, 'later', 'alice'), 'now there');
    await expect(secrets.read(caller('alice'))).resolves.toMatchObject({ secret: 'now there' });
  });

  it('refuses a negative cache lifetime at construction', () => {
    expect(() => open({ cacheMs: -1 })).toThrow(RangeError);
  });
});
