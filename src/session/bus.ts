// Messages between replicas: a client's answer to a server-to-client request, or its cancellation,
// may arrive at any replica, while the request waits on one. The memory bus is the single-replica
// case; the Redis bus uses pub/sub on the replica's one subscriber connection.
import { randomBytes } from 'node:crypto';

export type BusHandler = (payload: Record<string, unknown>, from: string) => void;

export interface Bus {
  /** This process's id: minted request ids carry it so answers find their way back. */
  readonly replicaId: string;
  /** Sends to every replica, this one included. */
  broadcast(topic: string, payload: Record<string, unknown>): Promise<void>;
  /**
   * Sends to every replica, this one included, each handling it once: also a replica whose
   * subscriber was reconnecting when it was sent, which reads what it missed once it is back. For
   * messages that must not be lost to an outage (list changes for the 2026 listens).
   */
  broadcastLogged(topic: string, payload: Record<string, unknown>): Promise<void>;
  /** Sends to one replica. */
  send(replicaId: string, topic: string, payload: Record<string, unknown>): Promise<void>;
  on(topic: string, handler: BusHandler): () => void;
  /**
   * True when `key` did not already hold `state`, which it holds from now on (for ttlSeconds), across
   * replicas: every replica sees the same upstream change, and only the first to record the new
   * state tells the sessions. A state that comes back later (a tool that comes and goes) is a new
   * change again, however soon, which a claim on the state alone would swallow.
   *
   * `claimant` names one attempt to announce: asked again with the same claimant (a retry after
   * the store did not answer, when the first claim may have been recorded all the same), the
   * answer is true again, so a claim whose answer was lost is not lost with it.
   */
  claimChange(key: string, state: string, ttlSeconds: number, claimant?: string): Promise<boolean>;
  close(): Promise<void>;
}

export function newReplicaId(): string {
  return randomBytes(6).toString('base64url');
}
