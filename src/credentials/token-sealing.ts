// Exchanged tokens go to the shared Redis sealed: AES-256-GCM under a key derived from
// sessions.credentialKey, which every replica has and Redis never sees. Whoever reads Redis (a
// backup, a MONITOR, another deployment sharing it) learns no token, and whoever can write to it
// cannot make a replica present a token of their making: any change fails the tag. Each value is
// bound to its key (the key is the additional authenticated data), so a sealed token of one caller
// copied under another caller's key does not open there.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Distinct from the other keys derived from a shared secret (request-state.ts uses its own info). */
const HKDF_INFO = 'upstream-credential-cache';
const MIN_SECRET_CHARS = 32;

export class TokenSealer {
  readonly #key: Buffer;

  /**
   * `secret`: sessions.credentialKey (or auth.signIn.secret), at least 32 characters (the config says
   * so too). `purpose` keeps the keys of different uses of one secret apart.
   */
  constructor(secret: string, purpose: string = HKDF_INFO) {
    if (secret.length < MIN_SECRET_CHARS) throw new RangeError(`the credential key must be at least ${MIN_SECRET_CHARS} characters`);
    this.#key = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), 'switchboard', purpose, 32));
  }

  /** base64url of iv | ciphertext | tag. */
  seal(plain: string, boundTo: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(boundTo, 'utf8'));
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /** `undefined` for anything this key did not seal for `boundTo`: altered, another key, another place. */
  open(sealed: string, boundTo: string): string | undefined {
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(boundTo, 'utf8'));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
