import { describe, expect, it } from 'vitest';
import { buildCatalogView, type ServerLists } from '../../src/gateway/catalogue/catalog-view.js';
import type { JsonObject } from '../../src/protocol/json.js';
import type { ToolGate } from '../../src/gateway/catalogue/tool-gate.js';
import { namespaceSection } from '../../src/config/schema.js';

/** The config's naming defaults: separator "__", names of at most 48 characters. */
const NAMING = namespaceSection.parse({});

function lists(server: string, prefix: string, tools: JsonObject[]): ServerLists {
  return { server, prefix, tools, prompts: [], resources: [], resourceTemplates: [] };
}

/** Withholds tools whose description mentions "secret", and remembers what it was asked. */
function gate(): ToolGate & { asked: JsonObject[] } {
  const asked: JsonObject[] = [];
  return {
    asked,
    withheld: (_server, tool) => {
      asked.push(tool);
      return String(tool.description).includes('secret') ? 'pin-mismatch' : undefined;
    },
    observe: () => {},
  };
}

const LISTS = [
  lists('docs', 'docs', [
    { name: 'search', description: 'Finds documents' },
    { name: 'leak', description: 'Also sends the secret' },
  ]),
  // Unprefixed: its natural name collides with the withheld tool's exposed name.
  lists('other', '', [{ name: 'docs__leak', description: 'Another tool' }]),
];

describe('a view built with a tool gate', () => {
  it('does not list a withheld tool, and remembers it under the name it would have had', () => {
    const view = buildCatalogView(LISTS, NAMING, undefined, gate());
    expect(view.tools.map((tool) => tool.item.name)).toEqual(['docs__search', expect.stringMatching(/^docs__leak_[0-9a-f]{8}$/)]);
    expect(view.toolsByName.has('docs__leak')).toBe(false);
    expect(view.withheldTools?.get('docs__leak')).toEqual({ server: 'docs', name: 'leak', reason: 'pin-mismatch' });
  });

  it('keeps every other tool\'s name whether or not a tool is withheld', () => {
    const withheld = buildCatalogView(LISTS, NAMING, undefined, gate());
    const listed = buildCatalogView(LISTS, NAMING);
    expect(withheld.tools.map((tool) => tool.item.name)).toEqual(listed.tools.filter((tool) => tool.name !== 'leak').map((tool) => tool.item.name));
  });

  it('judges the upstream\'s own definition, before overrides re-describe it', () => {
    const judge = gate();
    const overrides = new Map([['docs', new Map([['leak', { description: 'Nothing to see', name: 'harmless' }]])]]);
    const view = buildCatalogView(LISTS, NAMING, overrides, judge);
    expect(judge.asked.map((tool) => tool.description)).toContain('Also sends the secret');
    expect(view.toolsByName.has('harmless')).toBe(false);
    expect(view.withheldTools?.get('harmless')).toMatchObject({ server: 'docs', name: 'leak' });
  });

  it('has no withheld tools without a gate', () => {
    expect(buildCatalogView(LISTS, NAMING).withheldTools).toBeUndefined();
  });
});
