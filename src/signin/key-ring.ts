// The authorization server's signing keys, shared by every replica through the key-value store
// (sealed: they are private keys). The newest key signs; older ones stay published in the JWKS, and
// accepted by the gateway's own token check, until the tokens they signed have expired. A new key is
// made every `signingKeyRotationDays` by whichever replica notices first (one wins, by a marker set
// only when absent); the others pick it up on their next reload, at most a minute later, or at once
// when a token names a key they do not know.
import { randomUUID } from 'node:crypto';
import { errors, exportJWK, generateKeyPair, importJWK, type JWK, type JWTVerifyGetKey } from 'jose';
import type { TokenSealer } from '../credentials/token-sealing.js';
import type { KeyValueStore } from '../session/key-value.js';

export const SIGNING_ALGORITHM = 'RS256';
const RING_KEY = 'keys:ring';
const RELOAD_MS = 60_000;
/** An unknown `kid` reloads the ring at most this often: garbage must not cost a store read each. */
const UNKNOWN_KID_RELOAD_MS = 5_000;
const DAY_SECONDS = 24 * 3600;

interface StoredKey {
  readonly jwk: JWK;
  /** Epoch seconds. */
  readonly createdAt: number;
}

export interface KeyRingOptions {
  readonly store: KeyValueStore;
  readonly sealer: TokenSealer;
  readonly rotationDays: number;
  /** The longest life of a token signed with a key (access and ID tokens): how long a retired key stays. */
  readonly longestTokenSeconds: number;
  /** Told when the ring changed (the authorization server is rebuilt with the new keys). */
  readonly onChange?: () => void;
  readonly now?: () => number;
}

export class KeyRing {
  #keys: readonly StoredKey[] = [];
  #lastReload = 0;
  #reloading: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #options: KeyRingOptions;

  constructor(options: KeyRingOptions) {
    this.#options = options;
  }

  /** Loads the ring, making the first key (or the next, when due) if this replica is the one to. */
  async start(): Promise<void> {
    await this.#reload();
    this.#timer = setInterval(() => void this.#reload().catch(() => {}), RELOAD_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** Private JWKs, newest first: what oidc-provider signs with (the first) and publishes. */
  get privateJwks(): readonly JWK[] {
    return this.#keys.map((key) => key.jwk);
  }

  /** For the gateway's token check: the public key a token's `kid` names. */
  readonly lookup: JWTVerifyGetKey = async (header) => {
    let key = this.#keys.find((candidate) => candidate.jwk.kid === header.kid);
    if (key === undefined && this.#now() * 1000 - this.#lastReload >= UNKNOWN_KID_RELOAD_MS) {
      await this.#reload();
      key = this.#keys.find((candidate) => candidate.jwk.kid === header.kid);
    }
    if (key === undefined || header.alg !== SIGNING_ALGORITHM) throw new errors.JWKSNoMatchingKey();
    const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = key.jwk;
    return importJWK(publicJwk, SIGNING_ALGORITHM);
  };

  #now(): number {
    return (this.#options.now ?? Date.now)() / 1000;
  }

  #reload(): Promise<void> {
    this.#reloading ??= this.#load().finally(() => (this.#reloading = undefined));
    return this.#reloading;
  }

  async #load(): Promise<void> {
    const { store, sealer, rotationDays } = this.#options;
    let keys = await this.#read();
    const newest = keys[0];
    if (newest === undefined || this.#now() - newest.createdAt >= rotationDays * DAY_SECONDS) {
      // One replica makes the key for this period; the others read it. The marker is short-lived,
      // so a replica that won and died before writing holds nobody up for longer than a minute.
      const period = Math.floor(this.#now() / (rotationDays * DAY_SECONDS));
      if (await store.setIfAbsent(`keys:rotation:${period}`, '1', 60)) {
        keys = this.#retire([await makeKey(this.#now()), ...keys]);
        await store.set(RING_KEY, sealer.seal(JSON.stringify(keys), RING_KEY));
      } else {
        keys = await this.#readAfterWinner();
      }
    }
    this.#lastReload = this.#now() * 1000;
    const changed = keys.map((key) => key.jwk.kid).join() !== this.#keys.map((key) => key.jwk.kid).join();
    this.#keys = keys;
    if (changed) this.#options.onChange?.();
  }

  /** Keys older than a newer one by more than a token's life sign nothing that is still valid. */
  #retire(keys: readonly StoredKey[]): StoredKey[] {
    return keys.filter((key, index) => index === 0 || this.#now() - keys[index - 1]!.createdAt < this.#options.longestTokenSeconds + 300);
  }

  async #read(): Promise<StoredKey[]> {
    const sealed = await this.#options.store.get(RING_KEY);
    if (sealed === undefined) return [];
    const plain = this.#options.sealer.open(sealed, RING_KEY);
    // A ring sealed with another secret: the replicas disagree on auth.signIn.secret.
    if (plain === undefined) throw new Error('the signing keys in the session store do not open with auth.signIn.secret: every replica needs the same secret');
    return JSON.parse(plain) as StoredKey[];
  }

  /** The replica that won the rotation writes the ring just after; wait for it briefly. */
  async #readAfterWinner(): Promise<StoredKey[]> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const keys = await this.#read();
      const newest = keys[0];
      if (newest !== undefined && this.#now() - newest.createdAt < this.#options.rotationDays * DAY_SECONDS) return keys;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('no signing key appeared in the session store: the replica making it did not finish');
  }
}

async function makeKey(now: number): Promise<StoredKey> {
  const { privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true, modulusLength: 2048 });
  const jwk = await exportJWK(privateKey);
  return { jwk: { ...jwk, kid: randomUUID(), alg: SIGNING_ALGORITHM, use: 'sig' }, createdAt: Math.floor(now) };
}
