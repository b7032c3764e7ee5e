// Search mode (an endpoint's `discovery: search`): instead of its whole tool list, the endpoint lists
// two tools of the gateway's own, one that finds tools by a query and one that calls a found tool.
// For teams with hundreds of tools, whose models choose worse the more tools they are shown. The
// search runs over the caller's own view (the endpoint's selection, then policy), so it never
// reveals a tool the caller could not call; ranking is MiniSearch's (BM25+, prefix and fuzzy
// matching) over names, titles and descriptions, an index built once per view. A tool of the view
// may also be called directly (an MCP App calls its own server's tools by name).
import MiniSearch from 'minisearch';
import type { ExposedNamedItem } from './catalog-view.js';
import { rpcErrors } from '../errors.js';
import type { MethodHandler } from '../handlers/handler-context.js';
import { callTool } from '../handlers/calls.js';
import { isJsonObject, type JsonObject } from '../../protocol/json.js';

export const FIND_TOOLS = 'find_tools';
export const CALL_TOOL = 'call_tool';
const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 50;

const SEARCH_TOOLS: readonly JsonObject[] = [
  {
    name: FIND_TOOLS,
    title: 'Find tools',
    description: `Finds the tools for a task among the many this server offers. Describe what you want to do in a few words; the answer lists the best matching tools (name, description and input schema), best first. Then call one with ${CALL_TOOL}.`,
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What the tool should do, e.g. "create a GitHub issue" or "read environment variables"' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: 'At most this many tools' },
      },
      required: ['query'],
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: CALL_TOOL,
    title: 'Call a tool',
    description: `Calls a tool that ${FIND_TOOLS} returned, by its name, with arguments that fit its input schema.`,
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', description: `The tool's name, as ${FIND_TOOLS} returned it` },
        arguments: { type: 'object', description: "The tool's arguments", additionalProperties: true },
      },
      required: ['name'],
    },
  },
];

interface Indexed {
  readonly id: number;
  readonly name: string;
  readonly title: string;
  readonly description: string;
}

/** One index per view's tool list: a new view (a catalogue change) is a new list, and its index goes with it. */
const indexes = new WeakMap<readonly ExposedNamedItem[], MiniSearch<Indexed>>();

function indexOf(tools: readonly ExposedNamedItem[]): MiniSearch<Indexed> {
  let index = indexes.get(tools);
  if (!index) {
    index = new MiniSearch<Indexed>({ fields: ['name', 'title', 'description'] });
    index.addAll(
      tools.map(({ item }, id) => ({
        id,
        name: String(item.name),
        title: titleOf(item),
        description: typeof item.description === 'string' ? item.description : '',
      })),
    );
    indexes.set(tools, index);
  }
  return index;
}

/** A tool's title: its own, else its annotations' (2025-03-26 had only that one). */
function titleOf(item: JsonObject): string {
  if (typeof item.title === 'string') return item.title;
  const annotated = isJsonObject(item.annotations) ? item.annotations.title : undefined;
  return typeof annotated === 'string' ? annotated : '';
}

/** The tools of `tools` that best match `query`, best first, as find_tools returns them. */
export function findTools(tools: readonly ExposedNamedItem[], query: string, limit: number): JsonObject[] {
  const hits = indexOf(tools).search(query, { boost: { name: 3, title: 2 }, prefix: true, fuzzy: 0.2 });
  return hits.slice(0, limit).flatMap((hit) => {
    const tool = tools[hit.id as number];
    if (!tool) return [];
    const { name, title, description, inputSchema, _meta } = tool.item;
    return [
      {
        name,
        ...(title !== undefined && { title }),
        ...(description !== undefined && { description }),
        inputSchema: inputSchema ?? { type: 'object' },
        // A host learns here, as from tools/list, which tool has an app (MCP Apps' `_meta.ui`).
        ...(_meta !== undefined && { _meta }),
      },
    ];
  });
}

const listSearchTools: MethodHandler = async () => ({ tools: [...SEARCH_TOOLS] });

const callSearchTool: MethodHandler = async (params, context) => {
  const args = isJsonObject(params.arguments) ? params.arguments : {};
  switch (params.name) {
    case FIND_TOOLS: {
      if (typeof args.query !== 'string') throw rpcErrors.invalidParams(`${FIND_TOOLS} needs "query", a string`);
      const limit = typeof args.limit === 'number' && Number.isInteger(args.limit) ? Math.min(Math.max(args.limit, 1), MAX_LIMIT) : DEFAULT_LIMIT;
      const found = findTools(context.view.tools, args.query, limit);
      context.trace.name = FIND_TOOLS;
      return { content: [{ type: 'text', text: JSON.stringify({ tools: found }) }], structuredContent: { tools: found } };
    }
    case CALL_TOOL: {
      const inner = calledTool(params);
      if (!inner) throw rpcErrors.invalidParams(`${CALL_TOOL} needs "name", the name of a tool ${FIND_TOOLS} returned, and "arguments" as an object if any`);
      // Exactly a direct tools/call of the found tool: the same routing, policy, forwarding and trace.
      return callTool(inner, context);
    }
    default:
      // Any other name is a direct call of a tool of the view, by its exposed name or its
      // upstream's own: an MCP App calls its server's tools so, through its host. The search runs
      // over the same view and call_tool calls any of it, so nothing more is reachable this way.
      return callTool(params, context);
  }
};

/** For a call_tool call: the tools/call params of the tool it calls (the `_meta`, e.g. a progress token, kept). */
export function calledTool(params: JsonObject): JsonObject | undefined {
  if (params.name !== CALL_TOOL) return undefined;
  const args = isJsonObject(params.arguments) ? params.arguments : {};
  if (typeof args.name !== 'string' || (args.arguments !== undefined && !isJsonObject(args.arguments))) return undefined;
  return { ...params, name: args.name, arguments: args.arguments ?? {} };
}

/** The handlers that differ on an endpoint in search mode. */
export const SEARCH_MODE_HANDLERS: Readonly<Record<string, MethodHandler>> = {
  'tools/list': listSearchTools,
  'tools/call': callSearchTool,
};
