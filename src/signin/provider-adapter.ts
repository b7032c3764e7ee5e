// oidc-provider's storage adapter over the key-value store (session/key-value.ts), so that every
// replica sees every client, grant, code, token and interaction: authorize on one, exchange the code
// and refresh on another.
//
// An opaque token's id is the token itself, and a code's id is the code: neither may be readable
// from the store. So keys hold a SHA-256 of the id, and every payload is sealed (AES-GCM, bound to
// its key) with a key derived from auth.signIn.secret: whoever reads Redis learns no credential, and
// whoever writes to it cannot plant one.
import { createHash } from 'node:crypto';
import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import type { TokenSealer } from '../credentials/token-sealing.js';
import type { KeyValueStore } from '../session/key-value.js';

/** Models whose records belong to a grant: revoking the grant (a reused refresh token, a revocation) removes them all. */
const GRANT_BOUND = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);
/**
 * Registered clients have no expiry of their own in oidc-provider; a registration flood must not
 * fill the store for ever, so a registration is forgotten after 180 days (the client
 * registers again when told its client_id is unknown, as the MCP clients do).
 */
const CLIENT_TTL_SECONDS = 180 * 24 * 3600;
/** How long a consumed marker lives for a record without an expiry of its own. */
const CONSUMED_MARKER_SECONDS = 3600;

export function storeAdapter(store: KeyValueStore, sealer: TokenSealer): (model: string) => Adapter {
  return (model) => new StoreAdapter(model, store, sealer);
}

class StoreAdapter implements Adapter {
  constructor(
    private readonly model: string,
    private readonly store: KeyValueStore,
    private readonly sealer: TokenSealer,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const ttl = expiresIn ?? (this.model === 'Client' ? CLIENT_TTL_SECONDS : undefined);
    const key = this.#key(id);
    await this.store.set(key, this.sealer.seal(JSON.stringify(payload), key), ttl);
    // Indexes hold hashed keys only.
    if (GRANT_BOUND.has(this.model) && typeof payload.grantId === 'string') {
      await this.store.addMember(grantKey(payload.grantId), key, ttl ?? CLIENT_TTL_SECONDS);
    }
    if (typeof payload.uid === 'string') await this.store.set(this.#indexKey('uid', payload.uid), key, ttl);
    if (typeof payload.userCode === 'string') await this.store.set(this.#indexKey('userCode', payload.userCode), key, ttl);
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    return this.#open(this.#key(id));
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const key = await this.store.get(this.#indexKey('uid', uid));
    return key === undefined ? undefined : this.#open(key);
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    const key = await this.store.get(this.#indexKey('userCode', userCode));
    return key === undefined ? undefined : this.#open(key);
  }

  /**
   * oidc-provider reads a code (or a refresh token being rotated), sees it unconsumed, then consumes
   * it: two replicas exchanging the same code at once could both pass the read. The marker set only
   * when absent lets one through; the other is refused as a reuse, and the grant revoked, as
   * oidc-provider does when it sees a consumed one.
   */
  async consume(id: string): Promise<void> {
    const key = this.#key(id);
    const payload = await this.#open(key);
    if (payload === undefined) return;
    const ttl = typeof payload.exp === 'number' ? Math.max(1, payload.exp - Math.floor(Date.now() / 1000)) : CONSUMED_MARKER_SECONDS;
    if (!(await this.store.setIfAbsent(`${key}:consumed`, '1', ttl))) {
      if (typeof payload.grantId === 'string') await this.revokeByGrantId(payload.grantId);
      throw new errors.InvalidGrant(`${this.model === 'RefreshToken' ? 'refresh token' : 'grant'} already used`);
    }
    await this.store.set(key, this.sealer.seal(JSON.stringify({ ...payload, consumed: Math.floor(Date.now() / 1000) }), key), ttl);
  }

  async destroy(id: string): Promise<void> {
    await this.store.delete(this.#key(id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    const keys = await this.store.members(grantKey(grantId));
    await this.store.delete(...keys, grantKey(grantId));
  }

  async #open(key: string): Promise<AdapterPayload | undefined> {
    const sealed = await this.store.get(key);
    if (sealed === undefined) return undefined;
    const plain = this.sealer.open(sealed, key);
    return plain === undefined ? undefined : (JSON.parse(plain) as AdapterPayload);
  }

  #key(id: string): string {
    return `oidc:${this.model}:${digest(id)}`;
  }

  #indexKey(kind: string, value: string): string {
    return `oidc:${this.model}:${kind}:${digest(value)}`;
  }
}

function grantKey(grantId: string): string {
  return `oidc:grant-members:${digest(grantId)}`;
}

function digest(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('base64url');
}
