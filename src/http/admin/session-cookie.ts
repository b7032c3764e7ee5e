// The status page's session in sign-in mode: who signed in and the scopes their token carried,
// sealed into a cookie (JWE, dir + A256GCM, a key derived from auth.signIn.secret, so any replica
// opens it and nobody can read or forge it). Not the access token: the cookie needs only who the
// person is and whether they are an admin, and a leaked cookie is then no bearer token for the MCP
// endpoints. It lives as long as the token did, at most MAX_SESSION_SECONDS; nothing is kept on
// the server, so signing out clears the browser's cookie (a copy taken before stays valid until exp).
// The sign-in's own state (PKCE verifier, state, return path) rides in a second, short-lived cookie.
import { hkdfSync } from 'node:crypto';
import { EncryptJWT, jwtDecrypt } from 'jose';

export const MAX_SESSION_SECONDS = 8 * 3600;
export const PENDING_SECONDS = 600;
/** Groups beyond these are left out of the cookie (they are shown, not checked): a cookie stays under 4 KiB. */
const MAX_GROUPS = 40;
const MAX_GROUP_CHARS = 1_500;

export interface AdminSession {
  readonly sub: string;
  readonly scopes: readonly string[];
  readonly groups: readonly string[];
  readonly email?: string;
  readonly name?: string;
  /** Seconds since the epoch. */
  readonly exp: number;
}

export interface PendingSignIn {
  readonly state: string;
  readonly verifier: string;
  /** The OpenID nonce, when the sign-in is at the team's provider (resource-server mode). */
  readonly nonce?: string;
  readonly redirectUri: string;
  readonly returnTo: string;
}

export class SessionSealer {
  readonly #session: Uint8Array;
  readonly #pending: Uint8Array;

  /** `kind`: whose pages the cookies are for (`admin`, `person` for the connections pages): keys and types apart. */
  constructor(
    secret: string,
    private readonly kind = 'admin',
  ) {
    const derive = (purpose: string) => new Uint8Array(hkdfSync('sha256', Buffer.from(secret, 'utf8'), 'switchboard', purpose, 32));
    this.#session = derive(`${kind}-session`);
    this.#pending = derive(`${kind}-sign-in-state`);
  }

  async sealSession(session: AdminSession): Promise<string> {
    let groups: string[] = [];
    for (const group of session.groups.slice(0, MAX_GROUPS)) {
      if (groups.join('').length + group.length > MAX_GROUP_CHARS) break;
      groups = [...groups, group];
    }
    const { exp, ...claims } = { ...session, groups };
    return new EncryptJWT({ ...claims }).setProtectedHeader({ alg: 'dir', enc: 'A256GCM', typ: `switchboard-${this.kind}-session` }).setIssuedAt().setExpirationTime(exp).encrypt(this.#session);
  }

  /** The session, or undefined for a cookie that is not one of ours, was changed, or has expired. */
  async openSession(sealed: string): Promise<AdminSession | undefined> {
    const payload = await this.#open(sealed, this.#session, `switchboard-${this.kind}-session`);
    if (payload === undefined || typeof payload.sub !== 'string' || typeof payload.exp !== 'number') return undefined;
    return {
      sub: payload.sub,
      scopes: strings(payload.scopes),
      groups: strings(payload.groups),
      ...(typeof payload.email === 'string' && { email: payload.email }),
      ...(typeof payload.name === 'string' && { name: payload.name }),
      exp: payload.exp,
    };
  }

  async sealPending(pending: PendingSignIn): Promise<string> {
    return new EncryptJWT({ ...pending })
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', typ: `switchboard-${this.kind}-sign-in` })
      .setExpirationTime(`${PENDING_SECONDS}s`)
      .encrypt(this.#pending);
  }

  async openPending(sealed: string): Promise<PendingSignIn | undefined> {
    const payload = await this.#open(sealed, this.#pending, `switchboard-${this.kind}-sign-in`);
    const { state, verifier, nonce, redirectUri, returnTo } = payload ?? {};
    if (typeof state !== 'string' || typeof verifier !== 'string' || typeof redirectUri !== 'string' || typeof returnTo !== 'string') return undefined;
    return { state, verifier, ...(typeof nonce === 'string' && { nonce }), redirectUri, returnTo };
  }

  async #open(sealed: string, key: Uint8Array, typ: string): Promise<Record<string, unknown> | undefined> {
    try {
      const { payload, protectedHeader } = await jwtDecrypt(sealed, key, { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] });
      return protectedHeader.typ === typ ? payload : undefined;
    } catch {
      return undefined;
    }
  }
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
