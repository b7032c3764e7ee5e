// Gateway tasks (docs/decisions/0019-gateway-tasks.md): a task-augmented tools/call of a tool whose
// upstream has no tasks runs here as a task of the gateway's. The call runs on the replica that
// took it, on that replica's connection, detached from the client's request (the client may go
// away); its status, and then its result, are written to the task store for the task's ttl, so any
// replica answers tasks/get and tasks/result from there. tasks/cancel marks it cancelled in the
// store and tells the running replica over the bus, which aborts the upstream request (the upstream
// gets notifications/cancelled).
import type { KeyValueStore } from '../../session/key-value.js';
import type { Bus } from '../../session/bus.js';
import { isJsonObject, type JsonObject } from '../../protocol/json.js';
import { catalogueError } from '../../protocol/error-catalogue.js';
import { RpcError, rpcError, toRpcError } from '../errors.js';
import type { TaskRecord } from './task-records.js';

/** The bounds of gateway tasks (config `tasks`). */
export interface GatewayTaskLimits {
  /** Live (not yet terminal) gateway tasks one principal may have. */
  readonly maxPerPrincipal: number;
  /** The largest result kept, in bytes of its JSON. */
  readonly maxResultBytes: number;
  /** The longest a gateway task and its result are kept. */
  readonly maxTtlSeconds: number;
}

interface RunState {
  task: JsonObject;
  result?: JsonObject;
  error?: JsonObject;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
/** How often tasks/result looks at the store while the task runs; also the pollInterval handed out. */
const POLL_MS = 250;
const CANCEL_TOPIC = 'gateway-task-cancel';
/**
 * The running replica's lease on a task: renewed every LEASE_RENEW_MS while the call runs, kept
 * LEASE_SECONDS. A task still working without it lost its replica (stopped, crashed): it is failed
 * then, rather than read `working` (and block tasks/result) until its ttl.
 */
const LEASE_SECONDS = 10;
const LEASE_RENEW_MS = 3_000;

export class GatewayRuns {
  readonly #running = new Map<string, AbortController>();

  constructor(
    private readonly store: KeyValueStore,
    private readonly bus: Bus,
    readonly limits: GatewayTaskLimits,
  ) {}

  /** Listens for cancels of the tasks this replica runs; returns what stops listening. */
  start(): () => void {
    return this.bus.on(CANCEL_TOPIC, (payload) => this.#running.get(String(payload.id))?.abort('cancelled by the client'));
  }

  /** The ttl a gateway task gets: the client's, capped; the cap when it asks for none. */
  ttlMs(asked: unknown): number {
    const cap = this.limits.maxTtlSeconds * 1000;
    return typeof asked === 'number' && Number.isFinite(asked) && asked > 0 ? Math.min(cap, Math.round(asked)) : cap;
  }

  /**
   * Refuses a new task when the principal already has the bound's number of gateway tasks kept
   * (`records`: its task records), working or done and not yet expired: what one principal can
   * make the store keep is at most maxPerPrincipal × maxResultBytes.
   */
  async checkBound(records: readonly TaskRecord[]): Promise<void> {
    const states = await Promise.all(records.filter((record) => record.gateway).map((record) => this.#state(record.id)));
    const kept = states.filter((state) => state !== undefined).length;
    if (kept >= this.limits.maxPerPrincipal) throw rpcError('GatewayTaskLimit', this.limits.maxPerPrincipal);
  }

  /**
   * Starts the call as the task `record`: writes it `working`, answers with the Task, and runs the
   * call after, on this replica, whatever becomes of the client's request.
   */
  async begin(record: TaskRecord, ttlMs: number, call: (signal: AbortSignal) => Promise<JsonObject>, onStatus: (task: JsonObject) => void): Promise<JsonObject> {
    const now = new Date().toISOString();
    const task: JsonObject = { taskId: record.id, status: 'working', createdAt: now, lastUpdatedAt: now, ttl: ttlMs, pollInterval: POLL_MS };
    await this.#renewLease(record.id);
    await this.#write(record.id, { task }, ttlMs);
    const abort = new AbortController();
    this.#running.set(record.id, abort);
    // Unreferenced: a call still running does not keep a stopping process alive.
    const lease = setInterval(() => void this.#renewLease(record.id).catch(() => {}), LEASE_RENEW_MS).unref();
    void this.#run(record, ttlMs, task, call, abort.signal, onStatus).finally(() => {
      clearInterval(lease);
      this.#running.delete(record.id);
    });
    return task;
  }

  async #run(record: TaskRecord, ttlMs: number, task: JsonObject, call: (signal: AbortSignal) => Promise<JsonObject>, signal: AbortSignal, onStatus: (task: JsonObject) => void): Promise<void> {
    let outcome: RunState;
    try {
      const result = await call(signal);
      const bytes = Buffer.byteLength(JSON.stringify(result));
      outcome =
        bytes > this.limits.maxResultBytes
          ? { task: { ...task, status: 'failed', statusMessage: 'the result is larger than the gateway keeps' }, error: RpcError.of(catalogueError('GatewayTaskResultTooLarge', bytes, this.limits.maxResultBytes)).toJson() }
          : // A tool's own error (isError) fails the task (the spec), its result still what tasks/result answers.
            { task: { ...task, status: result.isError === true ? 'failed' : 'completed' }, result };
    } catch (error) {
      if (signal.aborted) return; // cancelled: tasks/cancel wrote the status already.
      outcome = { task: { ...task, status: 'failed', statusMessage: toRpcError(error).message }, error: toRpcError(error).toJson() };
    }
    const now = await this.#state(record.id);
    if (now === undefined || TERMINAL.has(String(now.task.status))) return; // cancelled meanwhile, or expired.
    outcome.task = { ...outcome.task, lastUpdatedAt: new Date().toISOString() };
    await this.#write(record.id, outcome, ttlMs);
    onStatus(outcome.task);
  }

  /** tasks/get, tasks/result, tasks/cancel of a gateway task, answered from the store. */
  async send(record: TaskRecord, method: string, signal: AbortSignal): Promise<JsonObject> {
    const state = await this.#current(record);
    if (state === undefined) throw rpcError('TaskNotFound', record.id);
    if (method === 'tasks/get') return state.task;
    if (method === 'tasks/cancel') return this.#cancel(record, state);
    if (method === 'tasks/result') return this.#result(record, state, signal);
    throw rpcError('MethodNotFound', method);
  }

  async #cancel(record: TaskRecord, state: RunState): Promise<JsonObject> {
    if (TERMINAL.has(String(state.task.status))) throw rpcError('InvalidParams', `task ${record.id} is already ${String(state.task.status)}`);
    const task: JsonObject = { ...state.task, status: 'cancelled', lastUpdatedAt: new Date().toISOString() };
    await this.#write(record.id, { task }, typeof task.ttl === 'number' ? task.ttl : this.ttlMs(undefined));
    const here = this.#running.get(record.id);
    if (here) here.abort('cancelled by the client');
    else await this.bus.send(record.replica, CANCEL_TOPIC, { id: record.id }).catch(() => {});
    return task;
  }

  /** Waits until the task is done (the spec: tasks/result blocks until then), then its result or its error. */
  async #result(record: TaskRecord, first: RunState, signal: AbortSignal): Promise<JsonObject> {
    let state: RunState | undefined = first;
    while (state !== undefined && !TERMINAL.has(String(state.task.status))) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      if (signal.aborted) throw rpcError('RequestCancelled', 'tasks/result');
      state = await this.#current(record);
    }
    if (state === undefined) throw rpcError('TaskNotFound', record.id);
    if (state.result) return state.result;
    const error = state.error ?? {};
    // A task cancelled (or failed without a stored error) has no result: an internal error names its status.
    const fallback = catalogueError('InternalError');
    throw new RpcError(typeof error.code === 'number' ? error.code : fallback.code, typeof error.message === 'string' ? error.message : `task ${String(state.task.status)}`, error.data);
  }

  /** The task's state; a working one whose replica's lease ran out is failed first (and so stored). */
  async #current(record: TaskRecord): Promise<RunState | undefined> {
    const state = await this.#state(record.id);
    if (state === undefined || TERMINAL.has(String(state.task.status)) || this.#running.has(record.id)) return state;
    if ((await this.store.get(leaseKey(record.id))) !== undefined) return state;
    const error = RpcError.of(catalogueError('GatewayTaskLost'));
    const lost: RunState = { task: { ...state.task, status: 'failed', statusMessage: error.message, lastUpdatedAt: new Date().toISOString() }, error: error.toJson() };
    await this.#write(record.id, lost, typeof state.task.ttl === 'number' ? state.task.ttl : this.ttlMs(undefined));
    return lost;
  }

  #renewLease(id: string): Promise<void> {
    return this.store.set(leaseKey(id), '1', LEASE_SECONDS);
  }

  async #state(id: string): Promise<RunState | undefined> {
    const text = await this.store.get(stateKey(id));
    if (text === undefined) return undefined;
    const parsed: unknown = JSON.parse(text);
    return isJsonObject(parsed) && isJsonObject(parsed.task) ? (parsed as unknown as RunState) : undefined;
  }

  #write(id: string, state: RunState, ttlMs: number): Promise<void> {
    return this.store.set(stateKey(id), JSON.stringify(state), Math.ceil(ttlMs / 1000));
  }
}

function leaseKey(id: string): string {
  return `gateway-task-run:${id}`;
}

function stateKey(id: string): string {
  return `gateway-task:${id}`;
}
