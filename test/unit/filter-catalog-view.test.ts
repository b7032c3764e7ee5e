// filterCatalogView, and the routing that goes through a filtered view: a denied item is absent
// from lists and lookups, and reaching it fails exactly as reaching an unknown one does.
import { describe, expect, it } from 'vitest';
import { buildCatalogView, type ServerLists } from '../../src/gateway/catalogue/catalog-view.js';
import { RpcError } from '../../src/gateway/errors.js';
import { filterCatalogView } from '../../src/gateway/catalogue/filter-view.js';
import { routePrompt, routeTool, routeUri, type Routing } from '../../src/gateway/calls/routing.js';
import { namespaceSection } from '../../src/config/schema.js';

/** The config's naming defaults: separator "__", names of at most 48 characters. */
const NAMING = namespaceSection.parse({});

const lists: ServerLists[] = [
  {
    server: 'everything',
    prefix: 'everything',
    tools: [{ name: 'echo' }, { name: 'get-env' }],
    prompts: [{ name: 'simple-prompt' }, { name: 'secret-prompt' }],
    resources: [{ uri: 'demo://public/a' }, { uri: 'demo://private/b' }],
    resourceTemplates: [{ uriTemplate: 'demo://public/{id}' }, { uriTemplate: 'demo://private/{id}' }],
  },
  {
    server: 'flat',
    prefix: '',
    tools: [{ name: 'flat_tool' }],
    prompts: [],
    resources: [{ uri: 'flat://open/x' }, { uri: 'flat://closed/y' }],
    resourceTemplates: [{ uriTemplate: 'flat://closed/{id}' }],
  },
];
const routing: Routing = {
  ...NAMING,
  servers: [
    { name: 'everything', prefix: 'everything', isReady: () => true },
    { name: 'flat', prefix: '', isReady: () => true },
  ],
};
const full = buildCatalogView(lists, NAMING);
const hiddenNames = new Set(['get-env', 'secret-prompt']);
const view = filterCatalogView(
  full,
  (_server, name) => !hiddenNames.has(name) && !name.startsWith('demo://private/') && !name.startsWith('flat://closed/'),
);

function errorOf(action: () => unknown): { code: number; message: string } {
  try {
    action();
  } catch (error) {
    if (error instanceof RpcError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected an RpcError');
}

describe('a catalogue view filtered by policy', () => {
  it('lists only the allowed tools, prompts, resources and templates', () => {
    expect(view.tools.map((tool) => tool.item.name)).toEqual(['everything__echo', 'flat_tool']);
    expect(view.prompts.map((prompt) => prompt.item.name)).toEqual(['everything__simple-prompt']);
    expect(view.resources.map((resource) => resource.uri)).toEqual(['demo://public/a', 'flat://open/x']);
    expect(view.resourceTemplates.map((template) => template.uriTemplate)).toEqual(['demo://public/{id}']);
  });

  it('answers a denied tool or prompt with exactly the error of an unknown one', () => {
    const denied = errorOf(() => routeTool(view, routing, 'everything__get-env'));
    const unknown = errorOf(() => routeTool(view, routing, 'everything__no-such-tool'));
    expect(denied).toEqual({ code: unknown.code, message: unknown.message.replace('no-such-tool', 'get-env') });
    const deniedPrompt = errorOf(() => routePrompt(view, routing, 'everything__secret-prompt'));
    const unknownPrompt = errorOf(() => routePrompt(view, routing, 'everything__no-such-prompt'));
    expect(deniedPrompt).toEqual({ code: unknownPrompt.code, message: unknownPrompt.message.replace('no-such-prompt', 'secret-prompt') });
  });

  it('refuses a denied URI whether it is listed, covered by a template or only tagged', () => {
    for (const uri of ['demo+everything://private/b', 'demo+everything://private/zzz', 'flat://closed/y', 'flat://closed/q']) {
      expect(errorOf(() => routeUri(view, routing, uri))).toEqual({ code: -32002, message: `Resource not found: ${uri}` });
    }
    expect(routeUri(view, routing, 'demo+everything://public/7')).toEqual({ server: 'everything', uri: 'demo://public/7' });
    expect(routeUri(view, routing, 'flat://open/x')).toEqual({ server: 'flat', uri: 'flat://open/x' });
  });

  it('leaves the full view untouched', () => {
    expect(full.tools).toHaveLength(3);
    expect(full.allows).toBeUndefined();
    expect(routeTool(full, routing, 'everything__get-env').name).toBe('get-env');
  });
});
