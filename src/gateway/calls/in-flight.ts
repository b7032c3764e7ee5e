// The client requests this replica is serving right now: what a cancellation aborts, and how a
// message from a shared upstream connection is traced back to the one caller it can belong to (the
// only caller with a request in flight on that upstream). A caller is a 2025 session or a single
// 2026 request (caller.ts); both are found here the same way.
import { CancelSource, type Cancellation } from '../../protocol/cancellation.js';
import { TransientMap } from '../../support/transient-map.js';
import type { UpstreamServerRequest } from '../../upstream/types.js';
import type { Caller } from '../caller.js';
import type { JsonObject } from '../../protocol/json.js';
import type { JsonRpcId } from '../../protocol/json-rpc.js';
import type { RelatedChannel } from './related-channel.js';

/**
 * How to put an upstream's question (sampling, elicitation, roots) to a caller that has no stream
 * to receive requests on: a 2026 request answers `input_required` instead (modern/park.ts).
 */
export type InputChannel = (request: UpstreamServerRequest) => Promise<JsonObject>;

/**
 * One request being served. It can be cancelled (the client's notifications/cancelled, a closed
 * 2026 stream, the session's end); its AbortSignal is made only for whoever asks for one, since an
 * AbortController per request is a cost on every call (a transferable object on Node 20) and the
 * stdio and HTTP request paths of 2025 upstreams listen through `onCancel` instead.
 */
export class InFlightRequest implements Cancellation {
  /**
   * The upstreams this request is waiting on, as a set: the first in a field of its own, since
   * almost every request waits on one upstream and a Set per request is a cost on every call.
   */
  #server: string | undefined;
  #moreServers: Set<string> | undefined;
  readonly #cancellation = new CancelSource();
  #reason = 'cancelled by the client';
  #controller: AbortController | undefined;

  constructor(
    /** Where the registry keeps it: a number of this replica's, unique among its requests. */
    readonly serial: number,
    readonly caller: Caller,
    readonly requestId: JsonRpcId,
    readonly related: RelatedChannel | undefined,
    /** Set for 2026 callers; a 2025 session is asked on its own streams (server-requests.ts). */
    readonly input: InputChannel | undefined,
  ) {}

  /** The request now waits on `server` too (once, however often it is said: a set). */
  waitOn(server: string): void {
    if (this.waitsOn(server)) return;
    if (this.#server === undefined) this.#server = server;
    else (this.#moreServers ??= new Set()).add(server);
  }

  /** The request no longer waits on `server`. */
  doneWith(server: string): void {
    if (this.#server === server) this.#server = undefined;
    else this.#moreServers?.delete(server);
  }

  waitsOn(server: string): boolean {
    return this.#server === server || this.#moreServers?.has(server) === true;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      const controller = new AbortController();
      this.#controller = controller;
      this.#cancellation.onCancel(() => controller.abort(this.#reason));
    }
    return this.#controller.signal;
  }

  cancel(reason: string): void {
    if (this.#cancellation.cancelled) return;
    this.#reason = reason;
    this.#cancellation.cancel();
  }

  onCancel(listener: () => void): () => void {
    return this.#cancellation.onCancel(listener);
  }
}

export type Attribution =
  | { readonly kind: 'caller'; readonly request: InFlightRequest; readonly related: RelatedChannel | undefined }
  | { readonly kind: 'none' }
  | { readonly kind: 'ambiguous'; readonly callers: number };

export class InFlightRegistry {
  /**
   * By serial, in a TransientMap: a Map would keep every request's objects alive through young
   * collections (support/transient-map.ts), and a number key, unlike a string naming the caller and
   * the id, is no object for a discarded table to hold on to either. Finding a request by its
   * caller and id, which only a cancellation does, looks through them all.
   */
  readonly #requests = new TransientMap<number, InFlightRequest>();
  #lastSerial = 0;

  start(caller: Caller, requestId: JsonRpcId, related: RelatedChannel | undefined, input?: InputChannel): InFlightRequest {
    this.#lastSerial += 1;
    const request = new InFlightRequest(this.#lastSerial, caller, requestId, related, input);
    this.#requests.set(request.serial, request);
    return request;
  }

  finish(request: InFlightRequest): void {
    this.#requests.delete(request.serial);
  }

  /**
   * Aborts a request of this replica; false when it is not here (it may be on another replica).
   * Should a client have reused an id while its first request is still in flight, the later one.
   */
  cancel(callerKey: string, requestId: JsonRpcId, reason?: string): boolean {
    let found: InFlightRequest | undefined;
    for (const request of this.#requests.values()) {
      if (request.requestId === requestId && request.caller.key === callerKey) found = request;
    }
    if (!found) return false;
    found.cancel(reason ?? 'cancelled by the client');
    return true;
  }

  cancelCaller(callerKey: string): void {
    for (const request of this.#requests.values()) {
      if (request.caller.key === callerKey) request.cancel('the session ended');
    }
  }

  /**
   * Which caller a message from `server` belongs to: the one caller with requests in flight on it,
   * and the request's own stream when exactly one of its requests is waiting there.
   */
  attribute(server: string): Attribution {
    let first: InFlightRequest | undefined;
    let waiting = 0;
    const callers = new Set<string>();
    for (const request of this.#requests.values()) {
      if (!request.waitsOn(server)) continue;
      first ??= request;
      waiting += 1;
      callers.add(request.caller.key);
    }
    if (!first) return { kind: 'none' };
    if (callers.size > 1) return { kind: 'ambiguous', callers: callers.size };
    return { kind: 'caller', request: first, related: waiting === 1 ? first.related : undefined };
  }
}
