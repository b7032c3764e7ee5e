// Stdio upstreams start through `setpriv --pdeathsig SIGKILL` where there is one, so the kernel
// kills them when the gateway dies; elsewhere they start as configured.
import { describe, expect, it } from 'vitest';
import { availableSetpriv, guardedCommand } from '../../src/upstream/child-guard.js';

describe('guardedCommand', () => {
  it('runs the command through setpriv with a parent-death signal when setpriv is there', () => {
    expect(guardedCommand('npx', ['-y', 'server'], '/usr/bin/setpriv')).toEqual({
      command: '/usr/bin/setpriv',
      args: ['--pdeathsig', 'SIGKILL', '--', 'npx', '-y', 'server'],
    });
  });

  it('runs the command as it is without setpriv', () => {
    expect(guardedCommand('npx', ['-y', 'server'], null)).toEqual({ command: 'npx', args: ['-y', 'server'] });
  });

  it.runIf(process.platform === 'linux')('finds a working setpriv on this Linux machine', () => {
    expect(availableSetpriv()).toMatch(/\/setpriv$/);
  });
});
