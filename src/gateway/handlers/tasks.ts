// tools/call with `task` (MCP 2025-11-25, experimental tasks) and the task methods: tasks/get,
// tasks/result, tasks/list, tasks/cancel. The gateway honours each tool's `execution.taskSupport`
// as the spec says, and hands out and takes back only task ids of its own (tasks/gateway-tasks.ts).
import type { ExposedNamedItem } from '../catalogue/catalog-view.js';
import { exposeContentUris } from '../catalogue/rewrite-uris.js';
import { rpcError, toRpcError } from '../errors.js';
import { ERRORS } from '../../protocol/error-catalogue.js';
import { isJsonObject, type JsonObject } from '../../protocol/json.js';
import { asGatewayTask, asGatewayTaskResult, type GatewayTasks, type TaskRequestContext } from '../tasks/gateway-tasks.js';
import type { TaskRecord } from '../tasks/task-records.js';
import type { HandlerContext, MethodHandler } from './handler-context.js';
import { isPrefixed } from './calls.js';
import { declaresTasks, detailedTask, isPending, modernTask, requireTasksDeclared, withInputRequests } from '../tasks/modern-tasks.js';
import { TASK_ANSWERS, TASK_INPUTS } from '../tasks/task-inbox.js';
import * as extension from '../tasks/extension-tasks.js';

type TaskSupport = 'required' | 'optional' | 'forbidden';

/** A tool's `execution.taskSupport`; absent or unknown is "forbidden", the spec's default. */
function taskSupportOf(tool: JsonObject): TaskSupport {
  const execution = tool.execution;
  const support = isJsonObject(execution) ? execution.taskSupport : undefined;
  return support === 'required' || support === 'optional' ? support : 'forbidden';
}

/** Whether the gateway announces task-augmented tools/call (some upstream does: sessions/initialize.ts). */
function announcesTasks(context: HandlerContext): boolean {
  const tasks = context.describe().capabilities.tasks;
  return isJsonObject(tasks) && isJsonObject(tasks.requests);
}

/**
 * A tools/call that asks for a task, or of a tool that says how it runs as one. Reached only then
 * (handlers/calls.ts), so a plain call of a plain tool pays nothing for tasks.
 */
export async function callToolWithTasks(params: JsonObject, context: HandlerContext, tool: ExposedNamedItem, calledAs: string): Promise<JsonObject> {
  const support = taskSupportOf(tool.item);
  const tasks = context.tasks;
  const modern = context.caller.era === 'modern';
  // A 2025 client asks for a task with `task`; for a 2026 client that declared the extension the
  // server decides (SEP-2663): the gateway makes one of every call of a tool that supports tasks.
  // Receivers that do not announce tasks process a task-augmented request normally (the spec).
  const asTask = (modern ? declaresTasks(context.caller) && support !== 'forbidden' : isJsonObject(params.task)) && tasks !== undefined && announcesTasks(context);
  if (!asTask) {
    if (support === 'required') {
      if (modern) requireTasksDeclared(context.caller);
      throw rpcError('TaskAugmentationRequired', calledAs);
    }
    const result = await context.forward(tool.server, 'tools/call', { ...withoutTask(params), name: tool.name }, calledAs);
    return isPrefixed(context, tool.server) ? exposeContentUris(result, tool.server) : result;
  }
  if (support === 'forbidden') throw rpcError('TaskAugmentationForbidden', calledAs);
  // A tool of a server without tasks, listed as one the gateway runs (tasks/gateway-run-tools.ts).
  if (tasks.runsGatewayTasks && tasks.isPlain(tool.server)) return runAsGatewayTask(params, context, tasks, tool, calledAs);
  const upstreamParams = modern ? { ...params, name: tool.name, task: {} } : { ...params, name: tool.name };
  const created = await context.forward(tool.server, 'tools/call', upstreamParams, calledAs);
  const answer = await tasks.created(context.caller, tool.server, created);
  // A 2026 upstream's task (the tasks extension) comes flat already: extension-tasks.ts shapes it.
  if (extension.isCreatedTask(answer)) return extension.createdForCaller(answer, modern);
  // 2026's CreateTaskResult is the task itself, flat, with resultType "task" (modern/shape.ts keeps it).
  if (!modern || !isJsonObject(answer.task) || typeof answer.task.taskId !== 'string') return answer;
  return { resultType: 'task', ...modernTask(answer.task, answer.task.taskId) };
}

/**
 * A gateway task (tasks/gateway-runs.ts): the upstream call goes the way a plain call's does
 * (forwardDetached: server limits, per-user credentials), detached from this request; its result,
 * with URIs made readable as for a plain call, goes to the task store instead of this response.
 */
async function runAsGatewayTask(params: JsonObject, context: HandlerContext, tasks: GatewayTasks, tool: ExposedNamedItem, calledAs: string): Promise<JsonObject> {
  const upstreamParams = { ...withoutTask(params), name: tool.name };
  const expose = isPrefixed(context, tool.server);
  const call = async (signal: AbortSignal) => {
    const result = await context.forwardDetached(tool.server, 'tools/call', upstreamParams, calledAs, signal);
    return expose ? exposeContentUris(result, tool.server) : result;
  };
  const created = await tasks.runAsGatewayTask(context.caller, tool.server, call, isJsonObject(params.task) ? params.task : {});
  if (context.caller.era !== 'modern') return created;
  return { resultType: 'task', ...modernTask(created.task as JsonObject, String((created.task as JsonObject).taskId)) };
}

/** The params without `task` (a call that will not be a task); the same object when it has none. */
function withoutTask(params: JsonObject): JsonObject {
  if (params.task === undefined) return params;
  const { task: _ignored, ...plain } = params;
  return plain;
}

/** The task service and the caller's record of `params.taskId`, with the request's trace filled in. */
async function taskRequest(params: JsonObject, context: HandlerContext): Promise<{ tasks: GatewayTasks; record: TaskRecord; request: TaskRequestContext }> {
  const tasks = context.tasks;
  if (!tasks) throw rpcError('MethodNotFound', 'tasks');
  if (context.caller.era === 'modern') requireTasksDeclared(context.caller);
  const record = await tasks.recordFor(context.caller, params);
  context.trace.server = record.server;
  return { tasks, record, request: requestOf(context) };
}

function requestOf(context: HandlerContext): TaskRequestContext {
  return { caller: context.caller, signal: context.inFlight.signal, forward: (server, method, params) => context.forward(server, method, params) };
}

export const getTask: MethodHandler = async (params, context) => {
  const { tasks, record, request } = await taskRequest(params, context);
  if (record.modern) return extension.getTask(tasks, record, request, context.caller.era === 'modern', exposerFor(context, record));
  const task = await tasks.send(record, 'tasks/get', request);
  if (context.caller.era !== 'modern') return asGatewayTask(task, record);
  const detailed = await detailedTask(task, record.id, () => tasks.send(record, 'tasks/result', request));
  // The questions a 2025 upstream asked for the task, held for this client (tasks/task-inbox.ts).
  if (!isPending(detailed)) return detailed;
  return withInputRequests(detailed, await tasks.atOwner(record, TASK_INPUTS, request, { status: task.status ?? null }));
};

export const cancelTask: MethodHandler = async (params, context) => {
  const { tasks, record, request } = await taskRequest(params, context);
  if (record.modern) return extension.cancelTask(tasks, record, request, context.caller.era === 'modern');
  if (context.caller.era !== 'modern') return asGatewayTask(await tasks.send(record, 'tasks/cancel', request), record);
  // 2026 answers an empty ack, also for a task already done (2025's upstream refuses that with -32602).
  await tasks.send(record, 'tasks/cancel', request).catch((error: unknown) => {
    if (toRpcError(error).code !== ERRORS.InvalidParams.code) throw error;
  });
  return {};
};

/**
 * 2026's tasks/update (a task's answers to its input requests): passed to a 2026 upstream's task;
 * for a 2025 upstream's, the answers to the questions the gateway holds for it (tasks/task-inbox.ts).
 * Not a 2025 method.
 */
export const updateTask: MethodHandler = async (params, context) => {
  if (context.caller.era !== 'modern') throw rpcError('MethodNotFound', 'tasks/update');
  const { tasks, record, request } = await taskRequest(params, context);
  if (record.modern) return extension.updateTask(tasks, record, params, request);
  if (!isJsonObject(params.inputResponses)) throw rpcError('InvalidParams', '"inputResponses" must be an object');
  await tasks.atOwner(record, TASK_ANSWERS, request, { inputResponses: params.inputResponses });
  return {};
};

export const taskResult: MethodHandler = async (params, context) => {
  // 2026-07-28 inlines the result in tasks/get; tasks/result is not of that revision.
  if (context.caller.era === 'modern') throw rpcError('MethodNotInVersion', 'tasks/result', context.caller.protocolVersion);
  const { tasks, record, request } = await taskRequest(params, context);
  const result = record.modern ? await extension.taskResult(tasks, record, request, context.ask) : await tasks.send(record, 'tasks/result', request);
  return asGatewayTaskResult(exposerFor(context, record)(result), record);
};

/** The record's upstream results with their URIs made readable through the gateway, as for a plain call. */
function exposerFor(context: HandlerContext, record: TaskRecord): (result: JsonObject) => JsonObject {
  return isPrefixed(context, record.server) ? (result) => exposeContentUris(result, record.server) : (result) => result;
}

/**
 * The caller's own tasks, each as its upstream tells it now, in one page. A task its upstream no
 * longer knows (expired there, or the replica that ran it gone) is left out.
 */
export const listTasks: MethodHandler = async (params, context) => {
  const tasks = context.tasks;
  if (!tasks) throw rpcError('MethodNotFound', 'tasks/list');
  // The tasks extension has no tasks/list: a 2026 client keeps the ids it was given.
  if (context.caller.era === 'modern') throw rpcError('MethodNotInVersion', 'tasks/list', context.caller.protocolVersion);
  if (params.cursor !== undefined) throw rpcError('TaskListCursor');
  const records = await tasks.listFor(context.caller);
  const request = requestOf(context);
  const answers = await Promise.allSettled(
    records.map(async (record) => {
      const task = await tasks.send(record, 'tasks/get', request);
      return record.modern ? extension.legacyTask(task, record.id) : asGatewayTask(task, record);
    }),
  );
  return { tasks: answers.flatMap((answer) => (answer.status === 'fulfilled' ? [answer.value] : [])) };
};
