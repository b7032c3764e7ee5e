// 2026 calls waiting for their client's answers (a 2025 upstream asked something mid-call and the
// call is held open, "parked", on this replica). The retry may reach any replica: the one that has
// the call resumes it; another forwards the answers over the bus and waits for the outcome. A call
// never retried is cancelled upstream when its time is up; a replica that is gone is noticed by
// its silence, and the retry gets a clear error rather than a hang.
import { randomBytes } from 'node:crypto';
import type { Bus } from '../../session/bus.js';
import type { Logger } from '../../observe/logger.js';
import { rpcError } from '../errors.js';
import { isJsonObject, type JsonObject } from '../../protocol/json.js';
import type { JsonRpcResponse } from '../../protocol/json-rpc.js';
import type { Cancellation } from '../../protocol/cancellation.js';
import { TransientMap } from '../../support/transient-map.js';
import type { RelatedChannel } from '../calls/related-channel.js';
import type { ModernCall, RoundOutcome } from './modern-call.js';

/** How long an owner has to acknowledge a forwarded retry before it is taken for gone. */
const ACK_TIMEOUT_MS = 3_000;
const Topic = { resume: 'mrtr-resume', ack: 'mrtr-ack', outcome: 'mrtr-outcome', cancel: 'mrtr-cancel' } as const;

/** What crosses the bus: an outcome without the live parts. */
export type ResumeOutcome =
  | { kind: 'done'; response: JsonRpcResponse; server?: string }
  /** Asked again: the call is parked under the same id, for the round named. */
  | { kind: 'input'; requests: JsonObject; round: number }
  | { kind: 'missing-capability'; capability: string }
  | { kind: 'cancelled' }
  /** No such call waiting for that round: it expired, finished, or the state was used already. */
  | { kind: 'gone' }
  /** The answers do not fit the questions; the call still waits for a correct retry. */
  | { kind: 'invalid'; reason: string };
type WireOutcome = ResumeOutcome;

interface Parked {
  readonly call: ModernCall;
  readonly timer: NodeJS.Timeout;
}

interface Waiting {
  resolve(outcome: WireOutcome): void;
  reject(error: Error): void;
  acknowledged(): void;
}

export class ParkedCalls {
  // Calls between their rounds, and rounds waiting on another replica: TransientMaps (support/transient-map.ts).
  readonly #parked = new TransientMap<string, Parked>();
  readonly #waiting = new TransientMap<string, Waiting>();
  #counter = 0;
  #detach: (() => void)[] = [];

  constructor(
    private readonly bus: Bus,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
  ) {}

  get replicaId(): string {
    return this.bus.replicaId;
  }

  start(): void {
    const { bus } = this;
    this.#detach = [
      bus.on(Topic.resume, (payload, from) => void this.#serveRemote(payload, from)),
      bus.on(Topic.ack, (payload) => this.#waiting.get(String(payload.rid))?.acknowledged()),
      bus.on(Topic.outcome, (payload) => {
        const waiting = this.#waiting.get(String(payload.rid));
        if (waiting && isJsonObject(payload.outcome)) waiting.resolve(payload.outcome as unknown as WireOutcome);
      }),
      bus.on(Topic.cancel, (payload) => this.#take(String(payload.park))?.cancel('the client cancelled the request')),
    ];
  }

  stop(): void {
    for (const detach of this.#detach.splice(0)) detach();
    for (const [id] of this.#parked) this.#take(id)?.cancel('the gateway is shutting down');
    for (const waiting of this.#waiting.values()) waiting.reject(rpcError('ShuttingDown'));
    this.#waiting.clear();
  }

  /** Holds a call that asked its client something; returns its id. */
  park(call: ModernCall, id = `${randomBytes(12).toString('base64url')}${(this.#counter += 1).toString(36)}`): string {
    const timer = setTimeout(() => {
      if (this.#take(id)) {
        this.logger.info({ park: id }, 'a 2026 call waiting for client input was never retried; cancelled upstream');
        call.cancel('the client did not answer in time');
      }
    }, this.timeoutMs);
    timer.unref();
    this.#parked.set(id, { call, timer });
    return id;
  }

  /** Takes a parked call of this replica out of the waiting room (it runs again, or is dropped). */
  #take(id: string): ModernCall | undefined {
    const parked = this.#parked.get(id);
    if (!parked) return undefined;
    clearTimeout(parked.timer);
    this.#parked.delete(id);
    return parked.call;
  }

  /** Resumes a call parked here with the client's answers; runs it until its next outcome. */
  async resumeLocal(
    id: string,
    round: number,
    inputResponses: JsonObject,
    related: RelatedChannel | undefined,
    gone: Cancellation | undefined,
  ): Promise<ResumeOutcome> {
    const parked = this.#parked.get(id);
    if (!parked || parked.call.round !== round) return { kind: 'gone' };
    const problem = parked.call.collector.problemWith(inputResponses);
    if (problem !== undefined) return { kind: 'invalid', reason: problem };
    const call = this.#take(id);
    if (!call) return { kind: 'gone' };
    call.answer(inputResponses);
    const outcome = await call.next(related, gone);
    if (outcome.kind === 'input') this.park(call, id);
    return toResumeOutcome(outcome, call.round);
  }

  /** Sends the answers to the replica that holds the call, and waits for what it says. */
  async resumeRemote(replica: string, id: string, round: number, inputResponses: JsonObject, gone: Cancellation | undefined): Promise<WireOutcome> {
    this.#counter += 1;
    const rid = `${this.bus.replicaId}.${this.#counter}`;
    const outcome = new Promise<WireOutcome>((resolve, reject) => {
      const noAck = setTimeout(() => {
        this.#waiting.delete(rid);
        reject(rpcError('CallLost'));
      }, ACK_TIMEOUT_MS);
      this.#waiting.set(rid, {
        resolve: (value) => {
          clearTimeout(noAck);
          this.#waiting.delete(rid);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(noAck);
          this.#waiting.delete(rid);
          reject(error);
        },
        acknowledged: () => clearTimeout(noAck),
      });
    });
    const stopListening = gone?.onCancel(() => void this.bus.send(replica, Topic.cancel, { park: id }).catch(() => {}));
    try {
      try {
        await this.bus.send(replica, Topic.resume, { rid, park: id, round, inputResponses });
      } catch (error) {
        // Never sent: no answer will come, and the wait for one must not reject later, unheard.
        this.#waiting.get(rid)?.acknowledged();
        this.#waiting.delete(rid);
        throw error;
      }
      return await outcome;
    } finally {
      stopListening?.();
    }
  }

  async #serveRemote(payload: Record<string, unknown>, from: string): Promise<void> {
    const rid = String(payload.rid);
    const id = String(payload.park);
    const round = typeof payload.round === 'number' ? payload.round : -1;
    const inputResponses = isJsonObject(payload.inputResponses) ? payload.inputResponses : {};
    try {
      await this.bus.send(from, Topic.ack, { rid });
      const outcome = await this.resumeLocal(id, round, inputResponses, undefined, undefined);
      await this.bus.send(from, Topic.outcome, { rid, outcome: outcome as unknown as Record<string, unknown> });
    } catch (error) {
      this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'could not resume a parked call for another replica');
    }
  }
}

export function toResumeOutcome(outcome: RoundOutcome, round: number): ResumeOutcome {
  switch (outcome.kind) {
    case 'done':
      return { kind: 'done', response: outcome.served.response, ...(outcome.served.trace.server !== undefined && { server: outcome.served.trace.server }) };
    case 'input':
      return { kind: 'input', requests: outcome.requests as unknown as JsonObject, round };
    case 'missing-capability':
      return { kind: 'missing-capability', capability: outcome.capability };
    case 'cancelled':
      return { kind: 'cancelled' };
  }
}
