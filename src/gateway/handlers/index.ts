// Every MCP method the gateway answers, by name: what is not here is -32601 (Method not found).
import type { MethodHandler } from './handler-context.js';
import { callTool, getPrompt } from './calls.js';
import { listPrompts, listResources, listResourceTemplates, listTools } from './lists.js';
import { complete, discover, ping, setLogLevel } from './misc.js';
import { cancelTask, getTask, listTasks, taskResult, updateTask } from './tasks.js';
import { readResource, subscribeResource, unsubscribeResource } from './resources.js';

export const HANDLERS: Readonly<Record<string, MethodHandler>> = {
  ping,
  'tools/list': listTools,
  'tools/call': callTool,
  'prompts/list': listPrompts,
  'prompts/get': getPrompt,
  'resources/list': listResources,
  'resources/templates/list': listResourceTemplates,
  'resources/read': readResource,
  'resources/subscribe': subscribeResource,
  'resources/unsubscribe': unsubscribeResource,
  'completion/complete': complete,
  'logging/setLevel': setLogLevel,
  'server/discover': discover,
  'tasks/get': getTask,
  'tasks/result': taskResult,
  'tasks/list': listTasks,
  'tasks/cancel': cancelTask,
  'tasks/update': updateTask,
};
