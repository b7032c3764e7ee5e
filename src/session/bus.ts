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
  /** Sends to one replica. */
  send(replicaId: string, topic: string, payload: Record<string, unknown>): Promise<void>;
  on(topic: string, handler: BusHandler): () => void;
  /**
   * True for exactly one caller per key within ttlSeconds, across replicas: lets every replica
   * see the same upstream change while only one of them tells the sessions.
   */
  claimOnce(key: string, ttlSeconds: number): Promise<boolean>;
  close(): Promise<void>;
}

export function newReplicaId(): string {
  return randomBytes(6).toString('base64url');
}
