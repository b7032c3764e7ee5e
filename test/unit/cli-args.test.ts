import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG_FILE, parseCommandLine } from '../../src/cli/args.js';

describe('command-line parsing', () => {
  it('runs the gateway on config/switchboard.yaml when nothing says otherwise', () => {
    expect(parseCommandLine([], {})).toEqual({ kind: 'run', configFile: DEFAULT_CONFIG_FILE, overrides: {} });
    expect(DEFAULT_CONFIG_FILE).toBe('config/switchboard.yaml');
  });

  it('takes the config file from SWITCHBOARD_CONFIG when --config is absent', () => {
    expect(parseCommandLine([], { SWITCHBOARD_CONFIG: '/etc/sb.yaml' })).toMatchObject({ configFile: '/etc/sb.yaml' });
  });

  it('prefers --config over SWITCHBOARD_CONFIG', () => {
    expect(parseCommandLine(['--config', 'a.yaml'], { SWITCHBOARD_CONFIG: 'b.yaml' })).toMatchObject({ configFile: 'a.yaml' });
  });

  it('passes --host and --port on as overrides', () => {
    expect(parseCommandLine(['--host', '0.0.0.0', '--port', '9000'], {})).toMatchObject({
      kind: 'run',
      overrides: { host: '0.0.0.0', port: 9000 },
    });
  });

  it('rejects a --port above 65535', () => {
    expect(parseCommandLine(['--port', '65536'], {})).toMatchObject({ kind: 'usage-error' });
  });

  it('rejects a config file given both as --config and as an operand', () => {
    expect(parseCommandLine(['validate', 'a.yaml', '--config', 'b.yaml'], {})).toMatchObject({ kind: 'usage-error' });
  });

  it('rejects an unknown command', () => {
    expect(parseCommandLine(['serve'], {})).toEqual({ kind: 'usage-error', message: 'unknown command "serve"' });
  });

  it('answers --help before looking at anything else', () => {
    expect(parseCommandLine(['validate', '--help', '--port', 'x'], {})).toEqual({ kind: 'help' });
  });

  it('takes lock with its config file, --lock and --check', () => {
    expect(parseCommandLine(['lock', '--config', 'a.yaml'], {})).toEqual({ kind: 'lock', configFile: 'a.yaml', overrides: {}, check: false });
    expect(parseCommandLine(['lock', 'a.yaml', '--check', '--lock', 'pins.yaml'], {})).toEqual({
      kind: 'lock',
      configFile: 'a.yaml',
      overrides: {},
      lockFile: 'pins.yaml',
      check: true,
    });
    expect(parseCommandLine(['lock'], { SWITCHBOARD_CONFIG: '/etc/sb.yaml' })).toMatchObject({ kind: 'lock', configFile: '/etc/sb.yaml' });
  });

  it('refuses --lock and --check without the lock command', () => {
    expect(parseCommandLine(['--check'], {})).toEqual({ kind: 'usage-error', message: '--check goes with the lock command' });
    expect(parseCommandLine(['validate', 'a.yaml', '--lock', 'b.yaml'], {})).toEqual({ kind: 'usage-error', message: '--lock goes with the lock command' });
  });
});
