// tools/call and prompts/get: find the owning upstream by exposed name, call it with its own name,
// and hand back the result with any URIs in it made readable through the gateway.
import type { MethodHandler } from './handler-context.js';
import { rpcErrors } from '../errors.js';
import { exposeContentUris, exposePromptUris } from '../catalogue/rewrite-uris.js';
import { routePrompt, routeTool } from '../calls/routing.js';
import { callToolWithTasks } from './tasks.js';

export const callTool: MethodHandler = async (params, context) => {
  if (typeof params.name !== 'string') throw rpcErrors.invalidParams('"name" must be a string');
  const tool = routeTool(context.view, context.routing, params.name);
  context.trace.server = tool.server;
  context.trace.name = tool.name;
  // Two property reads are all a plain call of a tool without `execution` pays for tasks.
  if (params.task !== undefined || tool.item.execution !== undefined) return callToolWithTasks(params, context, tool, params.name);
  const result = await context.forward(tool.server, 'tools/call', { ...params, name: tool.name }, params.name);
  return isPrefixed(context, tool.server) ? exposeContentUris(result, tool.server) : result;
};

export const getPrompt: MethodHandler = async (params, context) => {
  if (typeof params.name !== 'string') throw rpcErrors.invalidParams('"name" must be a string');
  const prompt = routePrompt(context.view, context.routing, params.name);
  context.trace.server = prompt.server;
  context.trace.name = prompt.name;
  const result = await context.forward(prompt.server, 'prompts/get', { ...params, name: prompt.name });
  return isPrefixed(context, prompt.server) ? exposePromptUris(result, prompt.server) : result;
};

type NamedServers = readonly { name: string; prefix: string }[];

/**
 * The prefixed servers of each list of configured servers: asked on every call, a scan of the list
 * grew with the number of servers. The list is made anew when a reload changes it
 * (compose/server-views.ts), so a set per list is never stale.
 */
const prefixedServers = new WeakMap<NamedServers, ReadonlySet<string>>();

export function isPrefixed(context: { routing: { servers: NamedServers } }, server: string): boolean {
  const { servers } = context.routing;
  let prefixed = prefixedServers.get(servers);
  if (prefixed === undefined) {
    prefixed = new Set(servers.filter((candidate) => candidate.prefix !== '').map((candidate) => candidate.name));
    prefixedServers.set(servers, prefixed);
  }
  return prefixed.has(server);
}
