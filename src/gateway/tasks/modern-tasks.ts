// A 2026-07-28 client's tasks (the io.modelcontextprotocol/tasks extension, SEP-2663) on a 2025
// upstream's experimental tasks. The shapes differ: 2026 has a flat CreateTaskResult
// (`resultType: "task"`), `ttlMs` and `pollIntervalMs` for `ttl` and `pollInterval`, a tasks/get
// that inlines the result (or the error) once the task is done instead of tasks/result, a tool's
// own error as `completed` with `isError` (2025 says `failed`), a task's questions as its
// `inputRequests` answered with tasks/update (2025 asks them as requests of its own: task-inbox.ts),
// and a tasks/cancel that answers an empty ack, also for a task already done.
import { TASKS_EXTENSION } from '../../protocol/extensions.js';
import { isJsonObject, type JsonObject } from '../../protocol/json.js';
import type { Caller } from '../caller.js';
import { catalogueError } from '../../protocol/error-catalogue.js';
import { RpcError, toRpcError } from '../errors.js';
import { RELATED_TASK } from './gateway-tasks.js';

/** Whether a 2026 caller declared the tasks extension (in its request's envelope). */
export function declaresTasks(caller: Caller): boolean {
  const extensions = caller.clientCapabilities.extensions;
  return isJsonObject(extensions) && isJsonObject(extensions[TASKS_EXTENSION]);
}

/** The task methods refuse a 2026 caller that did not declare the extension (SEP-2575 missing capability). */
export function requireTasksDeclared(caller: Caller): void {
  if (!declaresTasks(caller)) throw RpcError.of(catalogueError('MissingRequiredClientCapability', `extensions["${TASKS_EXTENSION}"]`), { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
}

/** A 2025 Task as 2026 has it, under the gateway's id. */
export function modernTask(task: JsonObject, taskId: string): JsonObject {
  const { ttl, pollInterval, taskId: _upstream, ...rest } = task;
  return {
    ...rest,
    taskId,
    ttlMs: typeof ttl === 'number' ? Math.round(ttl) : null,
    ...(typeof pollInterval === 'number' && { pollIntervalMs: Math.round(pollInterval) }),
  };
}

const TERMINAL_WITH_OUTCOME = new Set(['completed', 'failed']);

/**
 * 2026's tasks/get answer (a DetailedTask): the task, and once it is done, what the call came to,
 * fetched with the 2025 upstream's tasks/result (which answers at once for a terminal task).
 */
export async function detailedTask(task: JsonObject, taskId: string, result: () => Promise<JsonObject>): Promise<JsonObject> {
  const detailed = modernTask(task, taskId);
  if (typeof task.status !== 'string' || !TERMINAL_WITH_OUTCOME.has(task.status)) return detailed;
  try {
    const outcome = withoutRelatedTask(await result());
    // A tool that ran and reported an error is a completed task in 2026; `failed` is for protocol errors.
    return { ...detailed, status: 'completed', result: outcome };
  } catch (error) {
    // What the call came to is a JSON-RPC error: the upstream's, as a plain call would have got it.
    return { ...detailed, status: 'failed', error: toRpcError(error).toJson() };
  }
}

/** Whether a 2026 task is still under way (working, or waiting for input). */
export function isPending(task: JsonObject): boolean {
  return task.status === 'working' || task.status === 'input_required';
}

/**
 * A pending task with the questions held for it (`inputs.inputRequests`, task-inbox.ts): 2026 has a
 * task that waits for input say what it waits for, so it is `input_required` exactly when some are
 * held (a 2025 upstream may say so before it delivered them, or still after one was answered).
 */
export function withInputRequests(task: JsonObject, inputs: JsonObject): JsonObject {
  const inputRequests = isJsonObject(inputs.inputRequests) ? inputs.inputRequests : {};
  if (Object.keys(inputRequests).length > 0) return { ...task, status: 'input_required', inputRequests };
  return task.status === 'input_required' ? { ...task, status: 'working' } : task;
}

function withoutRelatedTask(result: JsonObject): JsonObject {
  const meta = result._meta;
  if (!isJsonObject(meta) || !(RELATED_TASK in meta)) return result;
  const { [RELATED_TASK]: _related, ...rest } = meta;
  const { _meta: _dropped, ...withoutMeta } = result;
  return Object.keys(rest).length > 0 ? { ...withoutMeta, _meta: rest } : withoutMeta;
}
