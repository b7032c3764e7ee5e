// Tool overrides applied to the merged view (buildCatalogView): renamed, re-described, annotated
// and hidden tools as the client sees them, while routing, policy and audit keep the upstream's
// own name.
import { describe, expect, it } from 'vitest';
import { buildCatalogView, type ServerLists } from '../../src/gateway/catalogue/catalog-view.js';
import { RpcError } from '../../src/gateway/errors.js';
import { filterCatalogView } from '../../src/gateway/catalogue/filter-view.js';
import { routeTool, type Routing } from '../../src/gateway/calls/routing.js';
import { applyToolOverride, toolOverridesFrom, unmatchedOverrides, type ToolOverride } from '../../src/gateway/catalogue/tool-overrides.js';
import { UpstreamUnavailableError } from '../../src/upstream/errors.js';
import { namespaceSection } from '../../src/config/schema.js';

/** The config's naming defaults: separator "__", names of at most 48 characters. */
const NAMING = namespaceSection.parse({});

const everything: ServerLists = {
  server: 'everything',
  prefix: 'everything',
  tools: [
    { name: 'echo', description: 'Echoes', annotations: { readOnlyHint: false, openWorldHint: false } },
    { name: 'get-env', description: 'Environment' },
    { name: 'add', description: 'Adds' },
  ],
  prompts: [{ name: 'echo' }],
  resources: [],
  resourceTemplates: [],
};
const flat: ServerLists = { server: 'flat', prefix: '', tools: [{ name: 'say' }], prompts: [], resources: [], resourceTemplates: [] };

const overrides = (byServer: Record<string, Record<string, ToolOverride>>) =>
  new Map(Object.entries(byServer).map(([server, record]) => [server, toolOverridesFrom(record)!]));

const names = (lists: readonly ServerLists[], byServer: Record<string, Record<string, ToolOverride>>) =>
  buildCatalogView(lists, NAMING, overrides(byServer)).tools.map((tool) => tool.item.name);

describe('applying tool overrides', () => {
  it('exposes a renamed tool under exactly the configured name, keeping the upstream name for routing', () => {
    const view = buildCatalogView([everything], NAMING, overrides({ everything: { echo: { name: 'say_back' } } }));
    expect(view.tools.map((tool) => tool.item.name)).toEqual(['say_back', 'everything__get-env', 'everything__add']);
    expect(view.toolsByName.get('say_back')).toMatchObject({ server: 'everything', name: 'echo' });
    expect(view.toolsByName.has('everything__echo')).toBe(false);
  });

  it('replaces title and description and lays annotations over the upstream\'s, key by key', () => {
    const view = buildCatalogView(
      [everything],
      NAMING,
      overrides({ everything: { echo: { title: 'Echo', description: 'Says it back', annotations: { readOnlyHint: true, title: 'Echo it' } } } }),
    );
    expect(view.toolsByName.get('everything__echo')?.item).toEqual({
      name: 'everything__echo',
      title: 'Echo',
      description: 'Says it back',
      annotations: { readOnlyHint: true, openWorldHint: false, title: 'Echo it' },
    });
  });

  it('adds annotations to a tool that had none', () => {
    expect(applyToolOverride({ name: 'x' }, { annotations: { destructiveHint: true, idempotentHint: undefined } })).toEqual({
      name: 'x',
      annotations: { destructiveHint: true },
    });
  });

  it('leaves out a hidden tool from the list and from the lookups', () => {
    const view = buildCatalogView([everything], NAMING, overrides({ everything: { 'get-env': { hidden: true, name: 'env' } } }));
    expect(view.tools.map((tool) => tool.item.name)).toEqual(['everything__echo', 'everything__add']);
    expect(view.toolsByName.has('everything__get-env')).toBe(false);
    expect(view.toolsByName.has('env')).toBe(false);
  });

  it('touches only tools: a prompt of the same name keeps its own', () => {
    const view = buildCatalogView([everything], NAMING, overrides({ everything: { echo: { name: 'say_back', hidden: false } } }));
    expect(view.prompts.map((prompt) => prompt.item.name)).toEqual(['everything__echo']);
  });

  it('applies overrides only to their own server', () => {
    const twin: ServerLists = { ...everything, server: 'twin', prefix: 'twin' };
    expect(names([everything, twin], { twin: { echo: { name: 'twin_echo' }, add: { hidden: true } } })).toEqual([
      'everything__echo',
      'everything__get-env',
      'everything__add',
      'twin_echo',
      'twin__get-env',
    ]);
  });

  it('lets a rename take a name that an unprefixed server\'s tool would have had; that one gets a rewritten name', () => {
    const exposed = names([flat, everything], { everything: { echo: { name: 'say' } } });
    expect(exposed[0]).toMatch(/^say_[0-9a-f]{8}$/);
    expect(exposed.slice(1)).toEqual(['say', 'everything__get-env', 'everything__add']);
  });

  it('swaps two names of one server', () => {
    expect(names([everything], { everything: { echo: { name: 'everything__add' }, add: { name: 'everything__echo' } } })).toEqual([
      'everything__add',
      'everything__get-env',
      'everything__echo',
    ]);
  });

  it('gives a tool its natural name when its rename is already taken (a config the schema refuses)', () => {
    const twin: ServerLists = { ...everything, server: 'twin', prefix: 'twin' };
    const exposed = names([everything, twin], { everything: { echo: { name: 'same' } }, twin: { echo: { name: 'same' } } });
    expect(exposed).toEqual(['same', 'everything__get-env', 'everything__add', 'twin__echo', 'twin__get-env', 'twin__add']);
  });

  it('treats a tool named like an Object.prototype member as just a name', () => {
    const odd: ServerLists = { ...flat, tools: [{ name: 'constructor' }, { name: 'toString' }] };
    expect(names([odd], { flat: { toString: { name: 'to_text' } } })).toEqual(['constructor', 'to_text']);
  });

  it('keeps policy on the upstream\'s own name: a deny of everything/echo hides the renamed tool', () => {
    const view = filterCatalogView(
      buildCatalogView([everything], NAMING, overrides({ everything: { echo: { name: 'say_back' } } })),
      (_server, name) => name !== 'echo',
    );
    expect(view.tools.map((tool) => tool.item.name)).toEqual(['everything__get-env', 'everything__add']);
    const routing: Routing = { ...NAMING, servers: [{ name: 'everything', prefix: 'everything', isReady: () => true }] };
    expect(() => routeTool(view, routing, 'say_back')).toThrow(RpcError);
  });

  it('names the server of a renamed tool whose upstream is down', () => {
    const routing: Routing = {
      ...NAMING,
      servers: [{ name: 'everything', prefix: 'everything', tools: toolOverridesFrom({ echo: { name: 'say_back' } }), isReady: () => false }],
    };
    const empty = buildCatalogView([], NAMING);
    expect(() => routeTool(empty, routing, 'say_back')).toThrow(UpstreamUnavailableError);
    expect(() => routeTool(empty, routing, 'unrelated')).toThrow(RpcError);
  });

  it('finds the overrides that name no tool the upstream lists', () => {
    expect(unmatchedOverrides(everything.tools, toolOverridesFrom({ echo: {}, typo: {}, later: { hidden: true } })!)).toEqual(['typo', 'later']);
  });

  it('builds the same view as before when there are no overrides', () => {
    expect(buildCatalogView([everything, flat], NAMING, overrides({}))).toEqual(buildCatalogView([everything, flat], NAMING));
    expect(toolOverridesFrom({})).toBeUndefined();
  });
});
