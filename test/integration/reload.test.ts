// A config reload while a session is open: servers come and go, the session stays and hears
// list_changed; an invalid config changes nothing. Through the real command line and its file.
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, withFreeAdminPort, writeConfigFile, type GatewayProcess } from '../support/gateway-process.js';
import { connectRecordingClient, firstText, type RecordingClient } from '../support/recording-client.js';
import { stdioFixture } from '../support/upstreams.js';

describe('config reload', () => {
  let configFile: string;
  let gateway: GatewayProcess;
  let client: RecordingClient;
  const left = stdioFixture('twin-server', { TWIN_LABEL: 'left' });
  const right = stdioFixture('twin-server', { TWIN_LABEL: 'right' });

  const toolNames = async () => (await client.client.listTools()).tools.map((tool) => tool.name);
  const logged = (message: string) => gateway.logs.filter((line) => line.msg === message);

  beforeAll(async () => {
    configFile = writeConfigFile({ mcpServers: { left } });
    gateway = await startGatewayProcess(configFile);
    client = await connectRecordingClient(gateway.url);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await gateway?.stop();
  });

  it('starts a server added to the file, and the open session hears list_changed', async () => {
    expect(await toolNames()).not.toContain('right__whoami');
    writeFileSync(configFile, JSON.stringify(withFreeAdminPort({ mcpServers: { left, right } })));
    await client.waitFor('notifications/tools/list_changed', 1, 20_000);
    expect(await toolNames()).toContain('right__whoami');
    expect(firstText(await client.client.callTool({ name: 'right__whoami', arguments: {} }))).toBe('right');
  });

  it('refuses an invalid config and keeps the running one', async () => {
    const before = logged('config reload refused: the new config is invalid; the running config stays').length;
    writeFileSync(configFile, JSON.stringify(withFreeAdminPort({ mcpServers: { right: { command: 42 } } })));
    await expect.poll(() => logged('config reload refused: the new config is invalid; the running config stays').length, { timeout: 10_000 }).toBe(before + 1);
    expect(await toolNames()).toEqual(expect.arrayContaining(['left__whoami', 'right__whoami']));
    expect(firstText(await client.client.callTool({ name: 'left__whoami', arguments: {} }))).toBe('left');
  });

  it('stops a removed server, and the same session goes on without it', async () => {
    const changes = client.received('notifications/tools/list_changed').length;
    writeFileSync(configFile, JSON.stringify(withFreeAdminPort({ mcpServers: { left } })));
    await client.waitFor('notifications/tools/list_changed', changes + 1, 20_000);
    expect(await toolNames()).not.toContain('right__whoami');
    expect(firstText(await client.client.callTool({ name: 'left__whoami', arguments: {} }))).toBe('left');
    await expect.poll(() => logged('config reloaded'), { timeout: 10_000 }).toContainEqual(expect.objectContaining({ removed: ['right'] }));
  });

  it('reloads on SIGHUP too', async () => {
    const bySignal = () => logged('config reloaded').filter((line) => line.trigger === 'SIGHUP');
    const before = bySignal().length;
    gateway.child.kill('SIGHUP');
    await expect.poll(() => bySignal().length, { timeout: 10_000 }).toBe(before + 1);
    expect(bySignal().at(-1)).toMatchObject({ added: [], removed: [], changed: [] });
  });
});
