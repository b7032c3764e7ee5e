// Tasks (2025-11-25, experimental) through the gateway: a task-augmented tools/call goes to the
// tool's upstream as it is; the task it creates there is handed to the client under an id of the
// gateway's (task-records.ts), and tasks/get, tasks/result, tasks/cancel reach that upstream task
// from any replica (task-relay.ts). Every Task the client sees carries the gateway's id; every
// upstream id stays inside.
import type { KeyValueStore } from '../../session/key-value.js';
import type { Bus } from '../../session/bus.js';
import { isJsonObject, type JsonObject } from '../../protocol/json.js';
import type { JsonRpcNotification } from '../../protocol/json-rpc.js';
import type { Caller } from '../caller.js';
import { rpcError } from '../errors.js';
import { TaskRecords, type TaskRecord } from './task-records.js';
import { TaskRelay, type LocalTaskRequest } from './task-relay.js';
import { GatewayRuns, type GatewayTaskLimits } from './gateway-runs.js';

/** The `_meta` key that ties a message to its task (tasks/result's answer carries it). */
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** What a task handler needs of the request it serves. */
export interface TaskRequestContext {
  readonly caller: Caller;
  readonly signal: AbortSignal;
  /** Sends the request on this replica's connection to `server`, as every forwarded request goes. */
  forward(server: string, method: string, params: JsonObject): Promise<JsonObject>;
}

export interface GatewayTasksOptions {
  readonly store: KeyValueStore;
  readonly bus: Bus;
  /** How this replica asks its upstream for a request another replica relays (no client to attribute it to). */
  readonly local: LocalTaskRequest;
  /** Gateway tasks for upstreams without tasks (gateway-runs.ts); off when absent. */
  readonly gatewayTasks?: GatewayTaskLimits;
  /** Whether `server` is one whose tool calls the gateway runs as its own tasks (it has none of its own). */
  readonly isPlain?: (server: string) => boolean;
  /** Sends a notification to a session (a gateway task's status, to the session that created it). */
  readonly notify?: (session: string, message: JsonRpcNotification) => Promise<void>;
}

export class GatewayTasks {
  readonly #records: TaskRecords;
  readonly #relay: TaskRelay;
  readonly #local: LocalTaskRequest;
  readonly #runs: GatewayRuns | undefined;
  readonly #notify: GatewayTasksOptions['notify'];
  readonly #isPlain: (server: string) => boolean;

  constructor(options: GatewayTasksOptions) {
    this.#records = new TaskRecords(options.store);
    this.#relay = new TaskRelay(options.bus, options.local);
    this.#local = options.local;
    this.#notify = options.notify;
    this.#isPlain = options.isPlain ?? (() => false);
    this.#runs = options.gatewayTasks && new GatewayRuns(options.store, options.bus, options.gatewayTasks);
  }

  /** Whether the gateway runs task-augmented calls of tools whose upstream has no tasks. */
  get runsGatewayTasks(): boolean {
    return this.#runs !== undefined;
  }

  /** Whether `server` has no tasks of its own, so a task of one of its tools is the gateway's. */
  isPlain(server: string): boolean {
    return this.#isPlain(server);
  }

  start(): () => void {
    const stopRelay = this.#relay.start();
    const stopRuns = this.#runs?.start();
    return () => {
      stopRelay();
      stopRuns?.();
    };
  }

  /**
   * Runs a task-augmented tools/call of `server`'s tool as a gateway task: `call` makes the upstream
   * call (the handler's own forwarding, so policy, limits and credentials apply as to a plain call),
   * detached from the client's request. Answers the CreateTaskResult; the session that created it
   * is told when it is done (notifications/tasks/status).
   */
  async runAsGatewayTask(caller: Caller, server: string, call: (signal: AbortSignal) => Promise<JsonObject>, task: JsonObject): Promise<JsonObject> {
    const runs = this.#runs;
    if (!runs) throw rpcError('MethodNotFound', 'tasks');
    const owner = ownerOf(caller);
    await runs.checkBound(await this.#records.allOf(owner));
    const ttlMs = runs.ttlMs(task.ttl);
    const record = await this.#records.create(
      { server, upstreamTaskId: '', replica: this.#relay.replicaId, owner, endpoint: caller.endpoint ?? '', gateway: true, ...(caller.session && { session: caller.session.id }) },
      ttlMs,
    );
    const session = caller.session?.id;
    const created = await runs.begin(record, ttlMs, call, (status) => {
      if (session) void this.#notify?.(session, { jsonrpc: '2.0', method: 'notifications/tasks/status', params: status }).catch(() => {});
    });
    return { task: created };
  }

  /**
   * What a task-augmented tools/call's upstream answered, as the client gets it: a CreateTaskResult
   * under a new id of the gateway's; any other answer (an upstream that ran the call at once) as it is.
   */
  async created(caller: Caller, server: string, result: JsonObject): Promise<JsonObject> {
    // A 2026 upstream's CreateTaskResult is the task itself (the tasks extension); a 2025 one's wraps it.
    const modern = result.resultType === 'task';
    const task = modern ? result : result.task;
    if (!isJsonObject(task) || typeof task.taskId !== 'string') return result;
    const record = await this.#records.create(
      {
        server,
        upstreamTaskId: task.taskId,
        replica: this.#relay.replicaId,
        owner: ownerOf(caller),
        endpoint: caller.endpoint ?? '',
        ...(caller.session && { session: caller.session.id }),
        ...(modern && { modern: true as const }),
      },
      modern ? task.ttlMs : task.ttl,
    );
    return modern ? { ...task, taskId: record.id } : { ...result, task: { ...task, taskId: record.id } };
  }

  /** The caller's task named by `params.taskId`; a task of someone else is "not found", as one that never was. */
  async recordFor(caller: Caller, params: JsonObject): Promise<TaskRecord> {
    const taskId = params.taskId;
    if (typeof taskId !== 'string') throw rpcError('InvalidParams', '"taskId" must be a string');
    const record = await this.#records.find(taskId, ownerOf(caller), caller.endpoint ?? '');
    if (!record) throw rpcError('TaskNotFound', taskId);
    return record;
  }

  /** The caller's live tasks, for tasks/list. */
  listFor(caller: Caller): Promise<TaskRecord[]> {
    return this.#records.listFor(ownerOf(caller), caller.endpoint ?? '');
  }

  /**
   * Sends `method` for the record's upstream task (with `extra` params, e.g. tasks/update's answers): on this replica's connection when it created the
   * task, else through the replica that did (or, that one gone, this one's after all).
   */
  async send(record: TaskRecord, method: string, context: TaskRequestContext, extra: JsonObject = {}): Promise<JsonObject> {
    if (record.gateway) {
      if (!this.#runs) throw rpcError('TaskNotFound', record.id);
      return this.#runs.send(record, method, context.signal);
    }
    const params = { ...extra, taskId: record.upstreamTaskId };
    if (record.replica !== this.#relay.replicaId) {
      const answered = await this.#relay.ask(record.replica, record.server, method, params, context.signal);
      if (answered !== undefined) return answered;
    }
    return context.forward(record.server, method, params);
  }

  /**
   * Sends `method` to the replica whose connection created the task, which answers it itself (the
   * questions it holds for the task: task-inbox.ts); this one's own answer when that one is gone.
   */
  async atOwner(record: TaskRecord, method: string, context: TaskRequestContext, extra: JsonObject = {}): Promise<JsonObject> {
    const params = { ...extra, taskId: record.upstreamTaskId };
    if (record.replica !== this.#relay.replicaId) {
      const answered = await this.#relay.ask(record.replica, record.server, method, params, context.signal);
      if (answered !== undefined) return answered;
    }
    return this.#local(record.server, method, params, context.signal);
  }

  /** The record of a task this replica's connection to `server` created, by the upstream's id. */
  ofUpstream(server: string, upstreamTaskId: string): Promise<TaskRecord | undefined> {
    return this.#records.ofUpstream(this.#relay.replicaId, server, upstreamTaskId);
  }

  /**
   * An upstream's notifications/tasks/status, for the session whose task it is, under the gateway's
   * id; undefined when the task is none this gateway handed out (it then goes nowhere: an upstream's
   * task id is never told to other sessions).
   */
  async statusNotification(server: string, params: JsonObject | undefined): Promise<{ session: string; message: JsonRpcNotification } | undefined> {
    if (!params || typeof params.taskId !== 'string') return undefined;
    const record = await this.ofUpstream(server, params.taskId);
    if (!record?.session) return undefined;
    return { session: record.session, message: { jsonrpc: '2.0', method: 'notifications/tasks/status', params: asGatewayTask(params, record) } };
  }
}

/** A Task of the upstream's, under the gateway's id. */
export function asGatewayTask(task: JsonObject, record: TaskRecord): JsonObject {
  return { ...task, taskId: record.id };
}

/** tasks/result's answer: the upstream's result, its related-task `_meta` naming the gateway's id. */
export function asGatewayTaskResult(result: JsonObject, record: TaskRecord): JsonObject {
  const meta = isJsonObject(result._meta) ? result._meta : {};
  return { ...result, _meta: { ...meta, [RELATED_TASK]: { taskId: record.id } } };
}

/** Whose tasks a caller's are: the principal's subject; without auth every caller is the same one. */
function ownerOf(caller: Caller): string {
  return caller.principal?.sub ?? '';
}
