// The client requests this replica is serving right now: what notifications/cancelled aborts, and
// how a message from a shared upstream connection is traced back to the one session it can belong
// to (the only session with a request in flight on that upstream).
import type { SessionRecord } from '../session/store.js';
import type { JsonRpcId } from './json-rpc.js';
import type { RelatedChannel } from './related-channel.js';

export interface InFlightRequest {
  readonly session: SessionRecord;
  readonly requestId: JsonRpcId;
  readonly abort: AbortController;
  readonly related: RelatedChannel | undefined;
  /** Upstreams this request is waiting on. */
  readonly servers: Set<string>;
}

export type Attribution =
  | { readonly kind: 'session'; readonly session: SessionRecord; readonly related: RelatedChannel | undefined }
  | { readonly kind: 'none' }
  | { readonly kind: 'ambiguous'; readonly sessions: number };

export class InFlightRegistry {
  readonly #requests = new Map<string, InFlightRequest>();

  start(session: SessionRecord, requestId: JsonRpcId, related: RelatedChannel | undefined): InFlightRequest {
    const request: InFlightRequest = { session, requestId, abort: new AbortController(), related, servers: new Set() };
    this.#requests.set(key(session.id, requestId), request);
    return request;
  }

  finish(request: InFlightRequest): void {
    const current = this.#requests.get(key(request.session.id, request.requestId));
    if (current === request) this.#requests.delete(key(request.session.id, request.requestId));
  }

  /** Aborts a request of this replica; false when it is not here (it may be on another replica). */
  cancel(sessionId: string, requestId: JsonRpcId, reason?: string): boolean {
    const request = this.#requests.get(key(sessionId, requestId));
    if (!request) return false;
    request.abort.abort(reason ?? 'cancelled by the client');
    return true;
  }

  cancelSession(sessionId: string): void {
    for (const request of this.#requests.values()) {
      if (request.session.id === sessionId) request.abort.abort('the session ended');
    }
  }

  /**
   * Which session a message from `server` belongs to: the one session with requests in flight on
   * it, and the request's own stream when exactly one of its requests is waiting there.
   */
  attribute(server: string): Attribution {
    const waiting = [...this.#requests.values()].filter((request) => request.servers.has(server));
    const sessions = new Set(waiting.map((request) => request.session.id));
    if (sessions.size === 0) return { kind: 'none' };
    if (sessions.size > 1) return { kind: 'ambiguous', sessions: sessions.size };
    const [first] = waiting as [InFlightRequest];
    return { kind: 'session', session: first.session, related: waiting.length === 1 ? first.related : undefined };
  }
}

function key(sessionId: string, requestId: JsonRpcId): string {
  return `${sessionId}\u0000${typeof requestId}:${requestId}`;
}
