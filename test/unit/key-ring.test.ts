// The signing keys' life (src/signin/key-ring.ts), on the memory key-value store with a clock the
// test moves: one key made for every replica, a new one after the rotation period with the old one
// still accepted, the old one retired once its tokens have expired, and a ring that does not open
// with this secret refused loudly.
import { SignJWT, importJWK, jwtVerify, type CryptoKey } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { TokenSealer } from '../../src/credentials/token-sealing.js';
import { MemoryKeyValueStore } from '../../src/session/memory-key-value.js';
import { KeyRing, SIGNING_ALGORITHM } from '../../src/signin/key-ring.js';

const DAY_MS = 24 * 3600 * 1000;
const SECRET = 'a-secret-of-at-least-thirty-two-characters';
const rings: KeyRing[] = [];
const stores: MemoryKeyValueStore[] = [];
afterEach(async () => {
  rings.splice(0).forEach((ring) => ring.stop());
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

function newStore(): MemoryKeyValueStore {
  const store = new MemoryKeyValueStore();
  stores.push(store);
  return store;
}

function ringOn(store: MemoryKeyValueStore, clock: { now: number }, secret = SECRET): KeyRing {
  const ring = new KeyRing({ store, sealer: new TokenSealer(secret, 'sign-in-state'), rotationDays: 30, longestTokenSeconds: 3600, now: () => clock.now });
  rings.push(ring);
  return ring;
}

async function tokenSignedBy(ring: KeyRing): Promise<string> {
  const jwk = ring.privateJwks[0]!;
  return new SignJWT({ sub: 'ada' }).setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: jwk.kid! }).sign(await importJWK(jwk, SIGNING_ALGORITHM));
}

describe('the key ring', () => {
  it('makes one key that every replica shares', async () => {
    const store = newStore();
    const clock = { now: Date.UTC(2026, 10, 1) };
    const [one, two] = [ringOn(store, clock), ringOn(store, clock)];
    await Promise.all([one.start(), two.start()]);
    expect(one.privateJwks.map((key) => key.kid)).toEqual(two.privateJwks.map((key) => key.kid));
    expect(one.privateJwks).toHaveLength(1);
    // A token signed on one replica is checked on the other.
    await expect(jwtVerify(await tokenSignedBy(one), two.lookup)).resolves.toMatchObject({ payload: { sub: 'ada' } });
  });

  it('makes a new key after the rotation period and still accepts the old one until its tokens have expired', async () => {
    const store = newStore();
    const clock = { now: Date.UTC(2026, 10, 1) };
    const ring = ringOn(store, clock);
    await ring.start();
    const oldToken = await tokenSignedBy(ring);
    const oldKid = ring.privateJwks[0]!.kid;

    clock.now += 31 * DAY_MS;
    const later = ringOn(store, clock);
    await later.start();
    expect(later.privateJwks.map((key) => key.kid)).toHaveLength(2);
    expect(later.privateJwks[1]!.kid).toBe(oldKid);
    expect(later.privateJwks[0]!.kid).not.toBe(oldKid);
    await expect(jwtVerify(oldToken, later.lookup, { currentDate: new Date(clock.now - 31 * DAY_MS) })).resolves.toBeDefined();

    // The next rotation retires the key two periods old: nothing it signed can still be valid.
    clock.now += 31 * DAY_MS;
    const latest = ringOn(store, clock);
    await latest.start();
    expect(latest.privateJwks.map((key) => key.kid)).not.toContain(oldKid);
    await expect(jwtVerify(oldToken, latest.lookup, { currentDate: new Date(clock.now - 62 * DAY_MS) })).rejects.toThrow(/no applicable key/i);
  });

  it('never hands out a private key for checking tokens', async () => {
    const ring = ringOn(newStore(), { now: Date.now() });
    await ring.start();
    const header = { alg: SIGNING_ALGORITHM, kid: ring.privateJwks[0]!.kid! };
    const key = (await ring.lookup(header, { payload: '', signature: '' } as never)) as CryptoKey;
    expect(key.type).toBe('public');
  });

  it('refuses a ring sealed with another secret, naming the setting', async () => {
    const store = newStore();
    const clock = { now: Date.now() };
    await ringOn(store, clock).start();
    await expect(ringOn(store, clock, 'another-secret-of-at-least-thirty-two-chars').start()).rejects.toThrow(/auth\.signIn\.secret/);
  });
});
