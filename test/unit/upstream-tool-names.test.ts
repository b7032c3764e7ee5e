// A tools/call by an upstream's own tool name (an MCP App calling its server's tools, routing.ts):
// accepted when exactly one server of the caller's view has the tool, refused naming both exposed
// names when two do, and never in place of an exposed name that exists.
import { describe, expect, it } from 'vitest';
import { buildCatalogView, type ServerLists } from '../../src/gateway/catalogue/catalog-view.js';
import { filterCatalogView } from '../../src/gateway/catalogue/filter-view.js';
import { RpcError } from '../../src/gateway/errors.js';
import { routeTool, type Routing } from '../../src/gateway/calls/routing.js';
import { namespaceSection } from '../../src/config/schema.js';

const NAMING = namespaceSection.parse({});
const server = (name: string, tools: string[], prefix = name): ServerLists => ({ server: name, prefix, tools: tools.map((tool) => ({ name: tool })), prompts: [], resources: [], resourceTemplates: [] });
const lists = [server('monitor', ['poll-system-stats', 'get-time', 'stats']), server('basic', ['get-time']), server('flat', ['stats'], '')];
const routing: Routing = { ...NAMING, servers: lists.map((list) => ({ name: list.server, prefix: list.prefix, isReady: () => true })) };
const view = buildCatalogView(lists, NAMING);

function errorOf(action: () => unknown): RpcError {
  try {
    action();
  } catch (error) {
    if (error instanceof RpcError) return error;
    throw error;
  }
  throw new Error('expected an RpcError');
}

describe("a tool called by its upstream's own name", () => {
  it('reaches the one server that has it', () => {
    const tool = routeTool(view, routing, 'poll-system-stats');
    expect({ server: tool.server, name: tool.name, exposed: tool.item.name }).toEqual({ server: 'monitor', name: 'poll-system-stats', exposed: 'monitor__poll-system-stats' });
  });

  it('is refused, naming every exposed name, when more than one server has it', () => {
    const error = errorOf(() => routeTool(view, routing, 'get-time'));
    expect(error.code).toBe(-32602);
    expect(error.message).toBe('Ambiguous tool: get-time is a tool of more than one server; call it as monitor__get-time or basic__get-time');
  });

  it('loses to an exposed name that is the same text', () => {
    // "stats" is the unprefixed server's exposed name, and monitor's own name for monitor__stats.
    expect(routeTool(view, routing, 'stats').server).toBe('flat');
  });

  it('is looked up in the caller view only: a tool denied there is unknown, and no longer makes a name ambiguous', () => {
    const filtered = filterCatalogView(view, (name, tool) => !(name === 'monitor' && tool === 'poll-system-stats') && !(name === 'basic' && tool === 'get-time'));
    expect(errorOf(() => routeTool(filtered, routing, 'poll-system-stats')).message).toBe('Unknown tool: poll-system-stats');
    expect(routeTool(filtered, routing, 'get-time').server).toBe('monitor');
  });
});
