// MCP Apps' ui:// URIs through the naming rules (namespace.ts, rewrite-uris.ts, catalog-view.ts):
// a prefixed server's ui:// URI keeps the scheme, with the server's slug as its authority, in every
// place the gateway hands it out, and an exposed one routes back to the upstream's own URI.
import { describe, expect, it } from 'vitest';
import { buildCatalogView, type ServerLists } from '../../src/gateway/catalogue/catalog-view.js';
import { exposeUri, parseExposedUri } from '../../src/gateway/catalogue/namespace.js';
import { exposeContentUris, exposeReadUris } from '../../src/gateway/catalogue/rewrite-uris.js';
import { routeUri, type Routing } from '../../src/gateway/calls/routing.js';
import { namespaceSection } from '../../src/config/schema.js';

const NAMING = namespaceSection.parse({});
const APP = 'ui://get-time/mcp-app.html';
const TOOL_META = { ui: { resourceUri: APP, visibility: ['model', 'app'], csp: { connectDomains: ['https://api.example.com'] } }, 'ui/resourceUri': APP };

describe('ui:// URIs of a prefixed server', () => {
  it('keep the ui:// scheme, with the slug as the authority, and parse back to the upstream URI', () => {
    expect(exposeUri('basic', APP)).toBe('ui://basic/get-time/mcp-app.html');
    expect(exposeUri('My Apps', 'ui://dash')).toBe('ui://my-apps/dash');
    expect(parseExposedUri('ui://basic/get-time/mcp-app.html')).toEqual({ slug: 'basic', uri: APP });
    expect(parseExposedUri('ui://my-apps/dash')).toEqual({ slug: 'my-apps', uri: 'ui://dash' });
    // Other schemes keep the tag in the scheme.
    expect(exposeUri('basic', 'file:///a')).toBe('file+basic:///a');
    for (const uri of [APP, 'ui://x', 'ui://a/b/c?d=1#e', 'ui://']) expect(parseExposedUri(exposeUri('basic', uri))?.uri).toBe(uri);
  });

  it('are exposed in tools/list _meta (both keys), with every other _meta key as the upstream wrote it', () => {
    const lists: ServerLists[] = [
      { server: 'basic', prefix: 'basic', tools: [{ name: 'get-time', _meta: TOOL_META }], prompts: [], resources: [{ uri: APP, name: APP }], resourceTemplates: [] },
      { server: 'flat', prefix: '', tools: [{ name: 'flat-time', _meta: TOOL_META }], prompts: [], resources: [], resourceTemplates: [] },
    ];
    const view = buildCatalogView(lists, NAMING);
    const [basic, flat] = view.tools.map((tool) => tool.item);
    expect(basic!._meta).toEqual({
      ui: { ...TOOL_META.ui, resourceUri: 'ui://basic/get-time/mcp-app.html' },
      'ui/resourceUri': 'ui://basic/get-time/mcp-app.html',
    });
    // An unprefixed server's URIs pass unchanged, and so does its tool.
    expect(flat!._meta).toBe(TOOL_META);
    expect(lists[0]!.tools[0]!._meta).toBe(TOOL_META);
    expect(view.resources.map((resource) => resource.item.uri)).toEqual(['ui://basic/get-time/mcp-app.html']);
  });

  it('are exposed in tool results (_meta, links, embedded resources) and in resources/read contents', () => {
    const result = {
      content: [{ type: 'resource_link', uri: APP, name: 'app' }, { type: 'resource', resource: { uri: APP, text: '<html>' } }],
      _meta: { ui: { resourceUri: APP } },
    };
    expect(exposeContentUris(result, 'basic')).toEqual({
      content: [
        { type: 'resource_link', uri: 'ui://basic/get-time/mcp-app.html', name: 'app' },
        { type: 'resource', resource: { uri: 'ui://basic/get-time/mcp-app.html', text: '<html>' } },
      ],
      _meta: { ui: { resourceUri: 'ui://basic/get-time/mcp-app.html' } },
    });
    const plain = { content: [{ type: 'text', text: 'now' }], _meta: { other: 1 } };
    expect(exposeContentUris(plain, 'basic')).toBe(plain);
    const contents = [{ uri: APP, mimeType: 'text/html;profile=mcp-app', text: '<html>', _meta: { ui: { prefersBorder: true } } }];
    expect(exposeReadUris({ contents }, 'basic').contents).toEqual([{ ...contents[0], uri: 'ui://basic/get-time/mcp-app.html' }]);
  });

  it('route back to the upstream with its own URI; an unprefixed server keeps a URI it lists even when it looks tagged', () => {
    const lists: ServerLists[] = [
      { server: 'basic', prefix: 'basic', tools: [], prompts: [], resources: [{ uri: APP }], resourceTemplates: [] },
      { server: 'flat', prefix: '', tools: [], prompts: [], resources: [{ uri: 'ui://basic/own.html' }], resourceTemplates: [] },
    ];
    const routing: Routing = {
      ...NAMING,
      servers: [
        { name: 'basic', prefix: 'basic', isReady: () => true },
        { name: 'flat', prefix: '', isReady: () => true },
      ],
    };
    const view = buildCatalogView(lists, NAMING);
    expect(routeUri(view, routing, 'ui://basic/get-time/mcp-app.html')).toEqual({ server: 'basic', uri: APP });
    expect(routeUri(view, routing, 'ui://basic/own.html')).toEqual({ server: 'flat', uri: 'ui://basic/own.html' });
    // Not listed and not tagged with a configured slug: the one unprefixed server decides.
    expect(routeUri(view, routing, 'ui://other/x.html')).toEqual({ server: 'flat', uri: 'ui://other/x.html' });
  });
});
