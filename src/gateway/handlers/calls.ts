// tools/call and prompts/get: find the owning upstream by exposed name, call it with its own name,
// and hand back the result with any URIs in it made readable through the gateway.
import type { MethodHandler } from '../handler-context.js';
import { rpcErrors } from '../errors.js';
import { exposeContentUris, exposePromptUris } from '../rewrite-uris.js';
import { routePrompt, routeTool } from '../routing.js';

export const callTool: MethodHandler = async (params, context) => {
  if (typeof params.name !== 'string') throw rpcErrors.invalidParams('"name" must be a string');
  const tool = routeTool(context.view, context.routing, params.name);
  context.trace.server = tool.server;
  context.trace.name = tool.name;
  const result = await context.forward(tool.server, 'tools/call', { ...params, name: tool.name });
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

export function isPrefixed(context: { routing: { servers: readonly { name: string; prefix: string }[] } }, server: string): boolean {
  return context.routing.servers.some((candidate) => candidate.name === server && candidate.prefix !== '');
}
