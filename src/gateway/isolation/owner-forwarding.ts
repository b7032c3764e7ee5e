// A request for a session-isolated stdio server that lands on a replica other than the one running
// the session's process goes to that owner over the bus; the owner acknowledges at once, then
// sends back what the upstream says while it works (progress, related messages) and its result.
// No acknowledgement within a few seconds means the owner is gone, and the caller takes over.
import type { Principal } from '../../auth/principal.js';
import type { Bus } from '../../session/bus.js';
import type { SessionRecord } from '../../session/store.js';
import { TransientMap } from '../../support/transient-map.js';
import type { ProgressUpdate } from '../../upstream/types.js';
import { catalogueError } from '../../protocol/error-catalogue.js';
import { RpcError, toRpcError } from '../errors.js';
import { isJsonObject, type JsonObject } from '../../protocol/json.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../../protocol/json-rpc.js';
import type { RelatedChannel } from '../calls/related-channel.js';

export interface ForwardedRequestOptions {
  readonly signal: AbortSignal;
  /**
   * Who asks, for per-user credentials. Crosses to the owner without its token (a stdio process
   * needs the caller's claims to find their secret, never the token).
   */
  readonly principal?: Principal;
  readonly onProgress?: (update: ProgressUpdate) => void;
  readonly related?: RelatedChannel;
}

export interface OwnerSide {
  /** Whether this replica runs the session's connection to the server. */
  owns(session: SessionRecord, server: string): boolean;
  /** Runs a forwarded request on this replica's own connection. */
  serve(session: SessionRecord, server: string, method: string, params: JsonObject | undefined, options: ForwardedRequestOptions): Promise<JsonObject>;
}

export type ForwardOutcome = { kind: 'answered'; result: JsonObject } | { kind: 'owner-gone' };

interface Waiting {
  resolve(result: JsonObject): void;
  reject(error: Error): void;
  acknowledged(): void;
  readonly options: ForwardedRequestOptions;
}

const ACK_TIMEOUT_MS = 3_000;
const Topic = {
  request: 'iso-request',
  ack: 'iso-ack',
  related: 'iso-related',
  result: 'iso-result',
  cancel: 'iso-cancel',
} as const;

export class OwnerForwarding {
  // Requests in flight on either side, one per forwarded call: TransientMaps (support/transient-map.ts).
  readonly #waiting = new TransientMap<string, Waiting>();
  readonly #served = new TransientMap<string, AbortController>();
  #counter = 0;

  constructor(
    private readonly bus: Bus,
    private readonly owner: OwnerSide,
  ) {}

  /** Listens on the bus; returns what stops listening. */
  start(): () => void {
    const { bus } = this;
    const offs = [
      bus.on(Topic.request, (payload, from) => void this.#serve(payload, from)),
      bus.on(Topic.ack, (payload) => this.#waiting.get(String(payload.fid))?.acknowledged()),
      bus.on(Topic.related, (payload) => this.#onRelated(payload)),
      bus.on(Topic.result, (payload) => this.#onResult(payload)),
      bus.on(Topic.cancel, (payload) => this.#served.get(String(payload.fid))?.abort('cancelled by the client')),
    ];
    return () => offs.forEach((off) => off());
  }

  async forward(
    owner: string,
    session: SessionRecord,
    server: string,
    method: string,
    params: JsonObject | undefined,
    options: ForwardedRequestOptions,
  ): Promise<ForwardOutcome> {
    this.#counter += 1;
    const fid = `${this.bus.replicaId}.${this.#counter}`;
    let acknowledged!: () => void;
    const ack = new Promise<'ack'>((resolve) => (acknowledged = () => resolve('ack')));
    const result = new Promise<JsonObject>((resolve, reject) => this.#waiting.set(fid, { resolve, reject, acknowledged, options }));
    // The answer can come before the acknowledgement has been awaited (or after the owner was
    // given up on): it is handled where it is awaited, never an unhandled rejection.
    result.catch(() => {});
    const onAbort = () => void this.bus.send(owner, Topic.cancel, { fid }).catch(() => {});
    options.signal.addEventListener('abort', onAbort, { once: true });
    try {
      await this.bus.send(owner, Topic.request, {
        fid,
        session: session as unknown as Record<string, unknown>,
        server,
        method,
        ...(params && { params }),
        progress: options.onProgress !== undefined,
        ...(options.principal && { principal: { sub: options.principal.sub, scopes: [...options.principal.scopes], claims: { ...options.principal.claims } } }),
      });
      let timer: NodeJS.Timeout | undefined;
      const heard = await Promise.race([ack, new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ACK_TIMEOUT_MS)))]);
      clearTimeout(timer);
      if (heard === 'timeout') return { kind: 'owner-gone' };
      return { kind: 'answered', result: await result };
    } finally {
      options.signal.removeEventListener('abort', onAbort);
      this.#waiting.delete(fid);
    }
  }

  async #serve(payload: Record<string, unknown>, from: string): Promise<void> {
    const fid = String(payload.fid);
    const session = payload.session as unknown as SessionRecord;
    const server = String(payload.server);
    if (!this.owner.owns(session, server)) return;
    const { bus } = this;
    await bus.send(from, Topic.ack, { fid }).catch(() => {});
    const abort = new AbortController();
    this.#served.set(fid, abort);
    const related: RelatedChannel = {
      send: (message: JsonRpcNotification | JsonRpcRequest) => void bus.send(from, Topic.related, { fid, message: message as unknown as Record<string, unknown> }).catch(() => {}),
    };
    try {
      const result = await this.owner.serve(session, server, String(payload.method), isJsonObject(payload.params) ? payload.params : undefined, {
        signal: abort.signal,
        related,
        ...(isForwardedPrincipal(payload.principal) && { principal: payload.principal }),
        ...(payload.progress === true && {
          onProgress: (update: ProgressUpdate) => void bus.send(from, Topic.related, { fid, progress: update as unknown as Record<string, unknown> }).catch(() => {}),
        }),
      });
      await bus.send(from, Topic.result, { fid, result });
    } catch (error) {
      await bus.send(from, Topic.result, { fid, error: toRpcError(error).toJson() }).catch(() => {});
    } finally {
      this.#served.delete(fid);
    }
  }

  #onRelated(payload: Record<string, unknown>): void {
    const waiting = this.#waiting.get(String(payload.fid));
    if (!waiting) return;
    if (isJsonObject(payload.progress)) waiting.options.onProgress?.(payload.progress as unknown as ProgressUpdate);
    else if (isJsonObject(payload.message)) waiting.options.related?.send(payload.message as unknown as JsonRpcNotification);
  }

  #onResult(payload: Record<string, unknown>): void {
    const waiting = this.#waiting.get(String(payload.fid));
    if (!waiting) return;
    if (isJsonObject(payload.result)) waiting.resolve(payload.result);
    else {
      const error = isJsonObject(payload.error) ? payload.error : {};
      const fallback = catalogueError('PeerReplicaFailed', 'the owning replica failed');
      waiting.reject(new RpcError(Number(error.code ?? fallback.code), String(error.message ?? fallback.message), error.data));
    }
  }
}

function isForwardedPrincipal(value: unknown): value is Principal {
  return isJsonObject(value) && typeof value.sub === 'string' && Array.isArray(value.scopes) && isJsonObject(value.claims) && !('token' in value);
}
