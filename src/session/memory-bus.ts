// The bus of a single replica: everything is local, so delivery is a function call.
import { EventEmitter } from 'node:events';
import { newReplicaId, type Bus, type BusHandler } from './bus.js';

export class MemoryBus implements Bus {
  readonly replicaId = newReplicaId();
  readonly #topics = new EventEmitter();
  readonly #claims = new Map<string, { state: string; claimant: string | undefined; expiresAt: number }>();

  constructor() {
    this.#topics.setMaxListeners(0);
  }

  async broadcast(topic: string, payload: Record<string, unknown>): Promise<void> {
    this.#topics.emit(topic, payload, this.replicaId);
  }

  async broadcastLogged(topic: string, payload: Record<string, unknown>): Promise<void> {
    await this.broadcast(topic, payload);
  }

  async send(replicaId: string, topic: string, payload: Record<string, unknown>): Promise<void> {
    if (replicaId === this.replicaId) this.#topics.emit(topic, payload, this.replicaId);
  }

  on(topic: string, handler: BusHandler): () => void {
    this.#topics.on(topic, handler);
    return () => this.#topics.off(topic, handler);
  }

  async claimChange(key: string, state: string, ttlSeconds: number, claimant?: string): Promise<boolean> {
    const now = Date.now();
    for (const [claimed, held] of this.#claims) if (held.expiresAt <= now) this.#claims.delete(claimed);
    const held = this.#claims.get(key);
    if (held?.state === state) return claimant !== undefined && held.claimant === claimant;
    this.#claims.set(key, { state, claimant, expiresAt: now + ttlSeconds * 1000 });
    return true;
  }

  async close(): Promise<void> {
    this.#topics.removeAllListeners();
  }
}
