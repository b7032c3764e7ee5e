// The gateway's requests in 2026-07-28 terms, as the client SDK words them (its wire codec for the
// era), without its protocol layer (see lean-requests.ts for why):
//   - every request and notification carries the reserved `_meta` envelope: protocol version,
//     client info and client capabilities, under the caller's own `_meta` keys, which win (the
//     gateway names the calling client's capabilities and log level there;
//     gateway/calls/upstream-params.ts);
//   - a request whose method the era deleted (ping, initialize, logging/setLevel, the task methods it
//     did not keep, ...) is refused with "method not found" before it is sent;
//   - every result must say its `resultType`: `complete` comes back without it, as from a 2025
//     upstream, and `input_required` as the InputRequiredResult the gateway takes (types.ts,
//     Upstream.request), with at least its inputRequests or its requestState; a tools/call may
//     also answer `task` (the tasks extension's CreateTaskResult), kept as it is;
//   - a task-augmented tools/call (2025's `task` param, the gateway's way of asking) and the tasks
//     extension's methods declare that extension in the request's client capabilities, as 2026
//     asks for a task (below).
// Results are not checked against the era's schema of each method, as on the 2025 path: the gateway
// relays them, its clients check what they consume, and what the gateway reads itself (the lists)
// it reads defensively (gateway/catalogue/list-pages.ts).
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/client';
import { copyWith, copyWithout, setOwn } from '../protocol/copy-with.js';
import type { UpstreamRpcError } from './errors.js';
import { upstreamError } from './errors.js';
import { isPlainObject, notAnObject, type RequestDialect } from './request-dialect.js';
import type { JsonObject } from './types.js';
import { TASKS_EXTENSION } from '../protocol/extensions.js';

/**
 * The 2025 request methods that 2026-07-28 deleted. Anything else goes out: the era's own methods,
 * `tasks/get` and `tasks/cancel` (which the Tasks extension defines again on this era), and
 * extension methods, which are no era's business.
 */
const DELETED_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
  'tasks/list',
  'tasks/result',
  'sampling/createMessage',
  'elicitation/create',
  'roots/list',
]);

const RESULT_TYPE: ReadonlySet<string> = new Set(['resultType']);

export interface ModernEnvelope {
  readonly protocolVersion: string;
  readonly clientInfo: Readonly<Record<string, unknown>>;
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
}

export function modernDialect(envelope: ModernEnvelope): RequestDialect {
  const { protocolVersion, clientInfo, clientCapabilities } = envelope;
  return {
    cancelsByClosingStream: true,
    refusal: (server, method) => (DELETED_METHODS.has(method) ? upstreamError(server, 'MethodNotFound', method) : undefined),
    outbound(params, method) {
      const meta: Record<string, unknown> = {
        [PROTOCOL_VERSION_META_KEY]: protocolVersion,
        [CLIENT_INFO_META_KEY]: clientInfo,
        [CLIENT_CAPABILITIES_META_KEY]: clientCapabilities,
      };
      const own = params?._meta;
      if (isPlainObject(own)) for (const key of Object.keys(own)) setOwn(meta, key, own[key]);
      if (!params || !asksForTasks(method, params)) return copyWith(params, { _meta: meta });
      meta[CLIENT_CAPABILITIES_META_KEY] = declaringTasks(meta[CLIENT_CAPABILITIES_META_KEY]);
      return copyWith(copyWithout(params, TASK_PARAM), { _meta: meta });
    },
    decode: decodeModernResult,
  };
}

/**
 * Tasks (the io.modelcontextprotocol/tasks extension, SEP-2663) as the gateway asks for them of
 * either era: a tools/call with `task` (2025's way of asking, which the gateway's handlers use) is
 * a task-augmented call, which 2026 asks for by declaring the extension on that request (and a
 * `task` param it ignores); the extension's own methods need the declaration too (-32021 without).
 * Only these requests declare it: a server must not answer any other with a task.
 */
const TASK_METHODS: ReadonlySet<string> = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);
const TASK_PARAM: ReadonlySet<string> = new Set(['task']);

function asksForTasks(method: string, params: JsonObject): boolean {
  return TASK_METHODS.has(method) || (method === 'tools/call' && isPlainObject(params.task));
}

function declaringTasks(capabilities: unknown): JsonObject {
  const declared = isPlainObject(capabilities) ? capabilities : {};
  const extensions = isPlainObject(declared.extensions) ? declared.extensions : {};
  return { ...declared, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
}

/** A 2026-07-28 result, read by its `resultType`. */
export function decodeModernResult(server: string, method: string, result: unknown): JsonObject | Error {
  if (!isPlainObject(result)) return notAnObject(server);
  const resultType = result.resultType;
  if (resultType === 'complete') return copyWithout(result, RESULT_TYPE) as JsonObject;
  if (resultType === 'input_required') return inputRequired(server, method, result);
  // A CreateTaskResult (flat: the Task itself), kept with its resultType for the gateway's task
  // handlers to tell from a result; the extension makes tasks of tools/call only.
  if (resultType === 'task' && method === 'tools/call') return createdTask(server, result);
  if (resultType === undefined) {
    return invalid(server, `the upstream answered ${method} without resultType, which a server of protocol revision 2026-07-28 must include`);
  }
  return invalid(server, `the upstream answered ${method} with a result type the gateway does not know: ${JSON.stringify(resultType)}`);
}

function inputRequired(server: string, method: string, result: JsonObject): JsonObject | Error {
  const inputRequests = isPlainObject(result.inputRequests) ? result.inputRequests : {};
  const { requestState, _meta } = result;
  if (Object.keys(inputRequests).length === 0 && typeof requestState !== 'string') {
    return invalid(server, `the upstream answered ${method} with input_required but neither inputRequests nor requestState`);
  }
  const decoded: JsonObject = { resultType: 'input_required', inputRequests };
  if (typeof requestState === 'string') decoded.requestState = requestState;
  if (isPlainObject(_meta)) decoded._meta = _meta;
  return decoded;
}

function createdTask(server: string, result: JsonObject): JsonObject | Error {
  if (typeof result.taskId !== 'string' || typeof result.status !== 'string') {
    return invalid(server, 'the upstream answered tools/call with a task that has no taskId or status');
  }
  return result;
}

function invalid(server: string, message: string): UpstreamRpcError {
  return upstreamError(server, 'UpstreamResultInvalid', message);
}
