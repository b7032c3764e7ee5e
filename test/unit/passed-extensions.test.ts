// What the gateway tells upstreams of a client's extensions (protocol/extensions.ts): only those it
// passes on, and what it announces to clients: those its upstreams announce.
import { describe, expect, it } from 'vitest';
import { announcedExtensions, UI_EXTENSION, withPassedExtensions } from '../../src/protocol/extensions.js';
import { mergeCapabilities } from '../../src/gateway/sessions/initialize.js';

describe('extensions through the gateway', () => {
  it("passes on a client's MCP Apps declaration and drops the extensions it does not carry", () => {
    const none = { sampling: {} };
    expect(withPassedExtensions(none)).toBe(none);
    const apps = { sampling: {}, extensions: { [UI_EXTENSION]: { mimeTypes: ['text/html;profile=mcp-app'] } } };
    expect(withPassedExtensions(apps)).toBe(apps);
    expect(withPassedExtensions({ ...apps, extensions: { ...apps.extensions, 'com.example/other': {} } })).toEqual(apps);
    expect(withPassedExtensions({ roots: {}, extensions: { 'com.example/other': {} } })).toEqual({ roots: {} });
  });

  it('announces MCP Apps when an upstream does, with the first such upstream settings', () => {
    expect(announcedExtensions([{ capabilities: { tools: {} } }])).toBeUndefined();
    const upstreams = [
      { server: 'a', capabilities: { tools: {}, extensions: { 'com.example/other': {} } }, instructions: undefined },
      { server: 'b', capabilities: { tools: {}, extensions: { [UI_EXTENSION]: { first: true } } }, instructions: undefined },
      { server: 'c', capabilities: { extensions: { [UI_EXTENSION]: { first: false } } }, instructions: undefined },
    ];
    expect(mergeCapabilities(upstreams).extensions).toEqual({ [UI_EXTENSION]: { first: true } });
    expect(mergeCapabilities(upstreams.slice(0, 1)).extensions).toBeUndefined();
  });
});
