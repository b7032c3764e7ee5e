// How the gateway sends a message that belongs to no client request: into the session's queue,
// from which one of its standalone (GET) streams, on whichever replica, takes it.
import type { SessionEvents } from '../../session/events.js';
import type { SessionStore } from '../../session/store.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../../protocol/json-rpc.js';
import { isPrincipalSessionId } from '../isolation/principal-sessions.js';

/** The ids of the sessions clients hold (not the isolation records of 2026 principals). */
export async function clientSessionIds(store: SessionStore): Promise<string[]> {
  return (await store.listIds()).filter((id) => !isPrincipalSessionId(id));
}

export class SessionOutbox {
  constructor(
    private readonly events: SessionEvents,
    private readonly store: SessionStore,
  ) {}

  /** `once`: a key naming this message, so a retry reaches each session once (SessionEvents.enqueue). */
  async toSessions(sessionIds: readonly string[], message: JsonRpcNotification | JsonRpcRequest, once?: string): Promise<number> {
    await this.events.enqueue(sessionIds, message as unknown as Record<string, unknown>, once);
    return sessionIds.length;
  }

  /** Every live session, on every replica (2026 principals' isolation records take no messages). */
  async toAllSessions(message: JsonRpcNotification): Promise<number> {
    return this.toSessions(await clientSessionIds(this.store), message);
  }
}
