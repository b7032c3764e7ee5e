// A task lives where it was created: an upstream may keep its tasks per connection (the SDK's
// in-memory task store is per session), and each replica has its own connection to each upstream.
// So tasks/get, tasks/result and tasks/cancel for a task another replica created go to that replica
// over the bus, which asks its own connection and sends the answer back. The owner acknowledges at
// once; no acknowledgement within a few seconds means it is gone, and the request is tried on this
// replica's connection instead (an upstream that keeps its tasks in a shared store still knows it).
import type { Bus } from '../../session/bus.js';
import { TransientMap } from '../../support/transient-map.js';
import { isJsonObject, type JsonObject } from '../../protocol/json.js';
import { catalogueError } from '../../protocol/error-catalogue.js';
import { RpcError, toRpcError } from '../errors.js';

/** How this replica asks one of its upstreams, for a request another replica relays to it. */
export type LocalTaskRequest = (server: string, method: string, params: JsonObject, signal: AbortSignal) => Promise<JsonObject>;

interface Waiting {
  resolve(result: JsonObject): void;
  reject(error: Error): void;
  acknowledged(): void;
}

const ACK_TIMEOUT_MS = 3_000;
const Topic = { request: 'task-request', ack: 'task-ack', result: 'task-result', cancel: 'task-cancel' } as const;

export class TaskRelay {
  readonly #waiting = new TransientMap<string, Waiting>();
  readonly #served = new TransientMap<string, AbortController>();
  #counter = 0;

  constructor(
    private readonly bus: Bus,
    private readonly local: LocalTaskRequest,
  ) {}

  get replicaId(): string {
    return this.bus.replicaId;
  }

  /** Listens on the bus; returns what stops listening. */
  start(): () => void {
    const { bus } = this;
    const offs = [
      bus.on(Topic.request, (payload, from) => void this.#serve(payload, from)),
      bus.on(Topic.ack, (payload) => this.#waiting.get(String(payload.rid))?.acknowledged()),
      bus.on(Topic.result, (payload) => this.#onResult(payload)),
      bus.on(Topic.cancel, (payload) => this.#served.get(String(payload.rid))?.abort('cancelled by the client')),
    ];
    return () => offs.forEach((off) => off());
  }

  /**
   * Sends the request to the replica `owner` and waits for its answer; undefined when the owner did
   * not acknowledge (gone), for the caller to try its own connection.
   */
  async ask(owner: string, server: string, method: string, params: JsonObject, signal: AbortSignal): Promise<JsonObject | undefined> {
    this.#counter += 1;
    const rid = `${this.bus.replicaId}.${this.#counter}`;
    let acknowledged!: () => void;
    const ack = new Promise<'ack'>((resolve) => (acknowledged = () => resolve('ack')));
    const result = new Promise<JsonObject>((resolve, reject) => this.#waiting.set(rid, { resolve, reject, acknowledged }));
    // The answer may come before the acknowledgement is awaited, or after the owner was given up on.
    result.catch(() => {});
    const onAbort = () => void this.bus.send(owner, Topic.cancel, { rid }).catch(() => {});
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await this.bus.send(owner, Topic.request, { rid, server, method, params });
      let timer: NodeJS.Timeout | undefined;
      const heard = await Promise.race([ack, new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ACK_TIMEOUT_MS)))]);
      clearTimeout(timer);
      if (heard === 'timeout') return undefined;
      return await result;
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.#waiting.delete(rid);
    }
  }

  async #serve(payload: Record<string, unknown>, from: string): Promise<void> {
    const rid = String(payload.rid);
    if (!isJsonObject(payload.params)) return;
    const { bus } = this;
    await bus.send(from, Topic.ack, { rid }).catch(() => {});
    const abort = new AbortController();
    this.#served.set(rid, abort);
    try {
      const result = await this.local(String(payload.server), String(payload.method), payload.params, abort.signal);
      await bus.send(from, Topic.result, { rid, result });
    } catch (error) {
      await bus.send(from, Topic.result, { rid, error: toRpcError(error).toJson() }).catch(() => {});
    } finally {
      this.#served.delete(rid);
    }
  }

  #onResult(payload: Record<string, unknown>): void {
    const waiting = this.#waiting.get(String(payload.rid));
    if (!waiting) return;
    if (isJsonObject(payload.result)) {
      waiting.resolve(payload.result);
      return;
    }
    const error = isJsonObject(payload.error) ? payload.error : {};
    const fallback = catalogueError('PeerReplicaFailed', 'the replica that runs the task failed');
    waiting.reject(new RpcError(typeof error.code === 'number' ? error.code : fallback.code, typeof error.message === 'string' ? error.message : fallback.message, error.data));
  }
}
