// How a 2025 session's work ends, on this replica and the others: its requests cancelled, its
// upstream subscriptions released, its upstream sessions ended, its record, events and views
// dropped, its streams closed. A session ends by DELETE on one replica, or is pushed out by its
// principal's cap on live sessions (the store dropped it); the others hear of it on the bus (they
// may hold its streams, requests and subscriptions too), and a subscription given up on one
// replica may be the last holder's elsewhere.
import type { Logger } from '../../observe/logger.js';
import type { Bus } from '../../session/bus.js';
import type { SessionEvents } from '../../session/events.js';
import type { SessionRecord, SessionStore } from '../../session/store.js';
import type { Upstream } from '../../upstream/types.js';
import type { InFlightRegistry } from '../calls/in-flight.js';
import type { IsolatedServers } from '../isolation/isolated-servers.js';
import type { SessionViews } from './session-views.js';
import type { SubscriptionCounter } from './subscriptions.js';

const SESSION_ENDED_TOPIC = 'session-ended';
const RELEASE_TOPIC = 'unsubscribe';

export interface SessionEndingOptions {
  readonly inFlight: InFlightRegistry;
  readonly subscriptions: SubscriptionCounter;
  readonly sessionViews: SessionViews;
  readonly isolated: IsolatedServers | undefined;
  readonly upstreams: { get(name: string): Upstream | undefined };
  readonly store: SessionStore;
  readonly events: SessionEvents;
  readonly bus: Bus;
  readonly logger: Logger;
}

export class SessionEnding {
  readonly #endedListeners = new Set<(sessionId: string) => void>();

  constructor(private readonly options: SessionEndingOptions) {}

  /** Told of every session that ends, on any replica: the HTTP layer closes its streams here. */
  onEnded(listener: (sessionId: string) => void): () => void {
    this.#endedListeners.add(listener);
    return () => this.#endedListeners.delete(listener);
  }

  /** Follows the other replicas' session ends and subscription releases; returns how to stop. */
  listen(): (() => void)[] {
    const { bus, subscriptions } = this.options;
    return [
      bus.on(RELEASE_TOPIC, (payload, from) => {
        const { sessionId, server, uri } = payload;
        if (from === bus.replicaId || typeof sessionId !== 'string' || typeof server !== 'string' || typeof uri !== 'string') return;
        if (subscriptions.release(server, uri, sessionId)) this.#unsubscribe(server, uri);
      }),
      bus.on(SESSION_ENDED_TOPIC, (payload) => {
        if (typeof payload.sessionId === 'string') this.#release(payload.sessionId);
      }),
    ];
  }

  /** Tells the other replicas that `sessionId` gave up its subscription to `uri` of `server`. */
  releaseElsewhere(sessionId: string, server: string, uri: string): Promise<void> {
    return this.options.bus.broadcast(RELEASE_TOPIC, { sessionId, server, uri });
  }

  /** Ends a session: its requests are cancelled, its subscriptions released, its record and events deleted. */
  async close(session: SessionRecord): Promise<void> {
    // The session is gone once this succeeds; a store that fails here fails the DELETE (retry).
    await this.options.store.delete(session.id);
    await this.ended(session);
  }

  /**
   * Ends a session the store has dropped already (its principal's cap pushed it out): everything
   * close does after the delete. Upstream sessions are ended within END_UPSTREAM_SESSION_TIMEOUT_MS.
   */
  async ended(session: SessionRecord): Promise<void> {
    const { sessionViews, isolated, events, bus, logger } = this.options;
    this.#release(session.id);
    sessionViews.forget(session.id);
    await isolated?.closeSession(session);
    // Clean-up after the fact: the DELETE is done whatever happens here (the logs expire with the
    // idle timeout, and other replicas' subscriptions with the session), so a store that stops
    // answering now must not make a client that got its session deleted retry into a 404.
    const cleanups = await Promise.allSettled([events.drop(session.id), bus.broadcast(SESSION_ENDED_TOPIC, { sessionId: session.id })]);
    for (const cleanup of cleanups) {
      if (cleanup.status === 'rejected') {
        const err = cleanup.reason instanceof Error ? cleanup.reason.message : String(cleanup.reason);
        logger.warn({ session: session.id.slice(0, 8), err }, 'a deleted session was not cleaned up everywhere');
      }
    }
  }

  #release(sessionId: string): void {
    for (const listener of this.#endedListeners) listener(sessionId);
    this.options.inFlight.cancelCaller(sessionId);
    for (const { server, uri } of this.options.subscriptions.releaseAll(sessionId)) this.#unsubscribe(server, uri);
  }

  #unsubscribe(server: string, uri: string): void {
    void this.options.upstreams
      .get(server)
      ?.request('resources/unsubscribe', { uri })
      .catch(() => {});
  }
}
