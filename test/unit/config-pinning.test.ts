import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseConfigText } from '../../src/config/load.js';
import { problemAt, problemsOf } from './config-test-helpers.js';

describe('the pinning section', () => {
  it('is off by default, withholding unpinned tools once on', () => {
    expect(parseConfigText('mcpServers: {}\n', 'yaml', {}).pinning).toEqual({ mode: 'off', lockFile: 'switchboard.lock.yaml', unpinnedTools: 'withhold' });
  });

  it('takes the mode alone as a shorthand', () => {
    expect(parseConfigText('pinning: enforce\n', 'yaml', {}).pinning).toMatchObject({ mode: 'enforce' });
    // YAML 1.2: `off` is a string, not false.
    expect(parseConfigText('pinning: off\n', 'yaml', {}).pinning).toMatchObject({ mode: 'off' });
  });

  it('takes every key in its long form', () => {
    const config = parseConfigText('pinning: {mode: warn, lockFile: /etc/switchboard/pins.yaml, unpinnedTools: allow}\n', 'yaml', {});
    expect(config.pinning).toEqual({ mode: 'warn', lockFile: '/etc/switchboard/pins.yaml', unpinnedTools: 'allow' });
  });

  it('names a bad mode, a bad unpinnedTools and an unknown key', () => {
    expect(problemAt(problemsOf('pinning: enforced\n'), 'pinning.mode')).toBe('expected one of "off"|"warn"|"enforce"');
    const problems = problemsOf('pinning: {unpinnedTools: drop, lockfile: x}\n');
    expect(problemAt(problems, 'pinning.unpinnedTools')).toMatch(/withhold.*allow/);
    expect(problemAt(problems, 'pinning.lockfile')).toMatch(/unknown key/);
  });

  it('reads the lock file path from the environment', () => {
    expect(parseConfigText('pinning: {mode: enforce, lockFile: "${PINS}"}\n', 'yaml', { PINS: '/pins/lock.yaml' }).pinning.lockFile).toBe('/pins/lock.yaml');
  });
});

describe('the lock file of a config file', () => {
  it('is named after the config file and sits beside it by default', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'switchboard-pinning-'));
    await writeFile(join(dir, 'team-a.yaml'), 'pinning: enforce\n');
    await writeFile(join(dir, 'team-b.json'), '{"pinning": {"mode": "warn"}}');
    await writeFile(join(dir, 'plain.yaml'), 'mcpServers: {}\n');
    expect((await loadConfig(join(dir, 'team-a.yaml'), {})).pinning.lockFile).toBe(join(dir, 'team-a.lock.yaml'));
    expect((await loadConfig(join(dir, 'team-b.json'), {})).pinning.lockFile).toBe(join(dir, 'team-b.lock.yaml'));
    expect((await loadConfig(join(dir, 'plain.yaml'), {})).pinning.lockFile).toBe(join(dir, 'plain.lock.yaml'));
  });

  it('is relative to the config file when the config names a relative path, and kept when absolute', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'switchboard-pinning-'));
    await writeFile(join(dir, 'relative.yaml'), 'pinning: {mode: enforce, lockFile: pins/switchboard.lock.yaml}\n');
    await writeFile(join(dir, 'absolute.yaml'), 'pinning: {mode: enforce, lockFile: /srv/pins.yaml}\n');
    expect((await loadConfig(join(dir, 'relative.yaml'), {})).pinning.lockFile).toBe(join(dir, 'pins', 'switchboard.lock.yaml'));
    expect((await loadConfig(join(dir, 'absolute.yaml'), {})).pinning.lockFile).toBe('/srv/pins.yaml');
  });
});
