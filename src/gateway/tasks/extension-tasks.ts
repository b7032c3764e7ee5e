// Tasks of an upstream that speaks 2026-07-28 (the io.modelcontextprotocol/tasks extension,
// SEP-2663), for either era of client. A 2026 client gets them as they are, under the gateway's
// id: tasks/get (the result, the error or the pending inputRequests inlined), tasks/update and
// tasks/cancel pass through. A 2025 client gets them as experimental tasks (2025-11-25): the Task
// without what 2026 inlines, `ttl` and `pollInterval` for `ttlMs` and `pollIntervalMs`, a tool's own
// error as `failed`; tasks/result waits for the end as 2025 has it, polling tasks/get, and puts the
// task's input requests to the client on that request's stream, as the upstream's own server-to-
// client requests would be (with the related-task `_meta` naming the gateway's id), answering the
// upstream with tasks/update. The wire side (declaring the extension, reading `resultType: "task"`)
// is the upstream connection's (upstream/modern-dialect.ts).
import { ERRORS } from '../../protocol/error-catalogue.js';
import { isJsonObject, type JsonObject } from '../../protocol/json.js';
import { inputRequestsOf, type InputRequest } from '../calls/input-rounds.js';
import { RpcError, rpcError } from '../errors.js';
import { RELATED_TASK, type GatewayTasks, type TaskRequestContext } from './gateway-tasks.js';
import type { TaskRecord } from './task-records.js';

/** What 2026 inlines in a task (tasks/get's DetailedTask), which a 2025 Task does not have. */
const INLINED = new Set(['resultType', 'result', 'error', 'inputRequests', '_meta']);
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
/** Bounds on how often tasks/result asks the upstream while it waits for the end. */
const POLL_MS = { min: 50, max: 5_000, fallback: 500 };

/** Whether an upstream's answer to a tools/call is a 2026 CreateTaskResult. */
export function isCreatedTask(result: JsonObject): boolean {
  return result.resultType === 'task';
}

/** A 2026 upstream's (Detailed)Task as a 2025 client has it, under the gateway's id. */
export function legacyTask(task: JsonObject, taskId: string): JsonObject {
  const legacy: JsonObject = { taskId };
  for (const [key, value] of Object.entries(task)) {
    if (INLINED.has(key) || key === 'taskId') continue;
    if (key === 'ttlMs') legacy.ttl = value;
    else if (key === 'pollIntervalMs') legacy.pollInterval = value;
    else legacy[key] = value;
  }
  // 2025 says `failed` of a tool that reported an error; 2026 says `completed` with isError.
  if (task.status === 'completed' && isJsonObject(task.result) && task.result.isError === true) legacy.status = 'failed';
  if (task.status === 'failed' && legacy.statusMessage === undefined && isJsonObject(task.error) && typeof task.error.message === 'string') {
    legacy.statusMessage = task.error.message;
  }
  return legacy;
}

/** tools/call's CreateTaskResult of a 2026 upstream, its id already the gateway's, in the caller's era's shape. */
export function createdForCaller(created: JsonObject, modernCaller: boolean): JsonObject {
  if (modernCaller) return created;
  return { task: legacyTask(created, String(created.taskId)) };
}

/** tasks/get: the upstream's DetailedTask, under the gateway's id (a 2025 caller: as its Task). */
export async function getTask(tasks: GatewayTasks, record: TaskRecord, request: TaskRequestContext, modernCaller: boolean, expose: (result: JsonObject) => JsonObject): Promise<JsonObject> {
  const detailed = await tasks.send(record, 'tasks/get', request);
  if (!modernCaller) return legacyTask(detailed, record.id);
  const { _meta: _upstreams, ...task } = detailed;
  return { ...task, taskId: record.id, ...(isJsonObject(task.result) && { result: expose(task.result) }) };
}

/** tasks/update (2026 callers only): the answers go to the upstream as they are; the ack is empty. */
export async function updateTask(tasks: GatewayTasks, record: TaskRecord, params: JsonObject, request: TaskRequestContext): Promise<JsonObject> {
  if (!isJsonObject(params.inputResponses)) throw rpcError('InvalidParams', '"inputResponses" must be an object');
  await tasks.send(record, 'tasks/update', request, { inputResponses: params.inputResponses });
  return {};
}

/** tasks/cancel: 2026's empty ack; a 2025 caller gets the task as it is after the cancellation. */
export async function cancelTask(tasks: GatewayTasks, record: TaskRecord, request: TaskRequestContext, modernCaller: boolean): Promise<JsonObject> {
  if (modernCaller) {
    await tasks.send(record, 'tasks/cancel', request);
    return {};
  }
  // 2025 refuses to cancel a task that is over (2026 acks it): as a 2025 upstream would answer.
  const before = await tasks.send(record, 'tasks/get', request);
  if (typeof before.status === 'string' && TERMINAL.has(before.status)) throw rpcError('InvalidParams', `task ${record.id} is already ${before.status}`);
  await tasks.send(record, 'tasks/cancel', request);
  return legacyTask(await tasks.send(record, 'tasks/get', request), record.id);
}

/**
 * tasks/result for a 2025 caller: waits until the task is over, as 2025 has it, putting each input
 * request the task makes to the client (`ask`) and its answer to the upstream; then the result, or
 * the error the call came to.
 */
export async function taskResult(tasks: GatewayTasks, record: TaskRecord, request: TaskRequestContext, ask: ((input: InputRequest) => Promise<JsonObject>) | undefined): Promise<JsonObject> {
  const asked = new Set<string>();
  for (;;) {
    const task = await tasks.send(record, 'tasks/get', request);
    if (task.status === 'completed') return isJsonObject(task.result) ? task.result : {};
    if (task.status === 'failed') {
      const error = isJsonObject(task.error) ? task.error : {};
      throw new RpcError(typeof error.code === 'number' ? error.code : ERRORS.InternalError.code, typeof error.message === 'string' ? error.message : 'the task failed', error.data);
    }
    if (task.status === 'cancelled') throw rpcError('TaskCancelled', record.id);
    const fresh = task.status === 'input_required' ? inputRequestsOf(task).filter(([key]) => !asked.has(key)) : [];
    if (fresh.length > 0 && ask) {
      for (const [key] of fresh) asked.add(key);
      const answers = await Promise.all(fresh.map(async ([key, input]) => [key, await ask(relatedTo(input, record.id))] as const));
      await tasks.send(record, 'tasks/update', request, { inputResponses: Object.fromEntries(answers) });
      continue;
    }
    await pause(pollInterval(task), request.signal);
  }
}

/** An input request of the task, naming the task by the gateway's id (as 2025's related-task `_meta` does). */
function relatedTo(input: InputRequest, taskId: string): InputRequest {
  const params = input.params ?? {};
  const meta = isJsonObject(params._meta) ? params._meta : {};
  return { method: input.method, params: { ...params, _meta: { ...meta, [RELATED_TASK]: { taskId } } } };
}

function pollInterval(task: JsonObject): number {
  const asked = task.pollIntervalMs;
  if (typeof asked !== 'number' || !Number.isFinite(asked)) return POLL_MS.fallback;
  return Math.min(POLL_MS.max, Math.max(POLL_MS.min, asked));
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(rpcError('RequestCancelled', 'tasks/result'));
    const timer = setTimeout(() => (signal.removeEventListener('abort', onAbort), resolve()), ms);
    const onAbort = () => (clearTimeout(timer), reject(rpcError('RequestCancelled', 'tasks/result')));
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
