// The storage of the tests' identity provider (team-idp.ts): oidc-provider's adapter interface over
// maps in memory, one per model. Ours rather than the built-in one so a test can add a client
// after start (its redirect URI names the gateway's port, known only once the gateway listens).
import type { Adapter, AdapterPayload } from 'oidc-provider';

interface Stored {
  readonly payload: AdapterPayload;
  readonly expiresAt: number | undefined;
}

export interface TeamIdpStore {
  /** The adapter class oidc-provider instantiates per model ("Session", "Client", ...). */
  readonly adapter: new (model: string) => Adapter;
  /** Writes a model's record directly, as registration would (used for clients added later). */
  put(model: string, id: string, payload: AdapterPayload): void;
  /** Forgets every grant and its tokens, as an administrator revoking everyone's sessions would. */
  revokeAllGrants(): void;
}

export function teamIdpStore(): TeamIdpStore {
  const models = new Map<string, Map<string, Stored>>();
  const modelMap = (model: string): Map<string, Stored> => {
    let map = models.get(model);
    if (map === undefined) models.set(model, (map = new Map()));
    return map;
  };
  const live = (stored: Stored | undefined): AdapterPayload | undefined =>
    stored === undefined || (stored.expiresAt !== undefined && stored.expiresAt < Date.now()) ? undefined : stored.payload;

  class MapAdapter implements Adapter {
    private readonly map: Map<string, Stored>;
    constructor(model: string) {
      this.map = modelMap(model);
    }
    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      this.map.set(id, { payload: { ...payload }, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : undefined });
    }
    async find(id: string): Promise<AdapterPayload | undefined> {
      return live(this.map.get(id));
    }
    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return [...this.map.values()].map(live).find((payload) => payload?.userCode === userCode);
    }
    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return [...this.map.values()].map(live).find((payload) => payload?.uid === uid);
    }
    async consume(id: string): Promise<void> {
      const stored = this.map.get(id);
      if (stored !== undefined) stored.payload.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string): Promise<void> {
      this.map.delete(id);
    }
    async revokeByGrantId(grantId: string): Promise<void> {
      for (const map of models.values()) {
        for (const [id, stored] of map) if (stored.payload.grantId === grantId) map.delete(id);
      }
    }
  }

  return {
    adapter: MapAdapter,
    put: (model, id, payload) => modelMap(model).set(id, { payload, expiresAt: undefined }),
    revokeAllGrants: () => {
      for (const model of ['Grant', 'AccessToken', 'RefreshToken', 'AuthorizationCode', 'Session']) modelMap(model).clear();
    },
  };
}
