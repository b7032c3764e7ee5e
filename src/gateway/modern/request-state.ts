// MRTR's requestState goes out to the client and comes back on the retry, so the client can change
// it. The gateway seals what it puts there: AES-256-GCM (confidential, and any change fails the tag)
// under a key all replicas share, binding the state to the principal it was issued to, an expiry,
// and the method and a digest of the params of the request it answers. A state that fails any of
// these is refused as a whole, never partly trusted.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { isJsonObject, type JsonObject } from '../../protocol/json.js';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Bounds what a client can make the gateway decrypt. */
const MAX_STATE_CHARS = 64 * 1024;
/** Params that are the retry's own and not part of "the same request". */
const RETRY_ONLY_PARAMS = new Set(['_meta', 'inputResponses', 'requestState']);

/** What the gateway remembers about a call between rounds. */
export type StateBody =
  /** A 2025 upstream's call parked on `replica`, waiting for round `round`'s answers. */
  | { readonly kind: 'park'; readonly replica: string; readonly park: string; readonly round: number }
  /** A 2026 upstream's own input_required: its state, to hand back on the retry. */
  | { readonly kind: 'relay'; readonly server: string; readonly upstreamState?: string }
  /**
   * The client was asked to open a URL, `round` times so far: to connect the person's account on
   * `server` (credentials.connection; `poll`: the retry waits for it), or by the upstream's -32042.
   */
  | { readonly kind: 'url'; readonly server: string; readonly round: number; readonly poll: boolean };

export interface RequestBinding {
  /** The principal's sub; '' when auth is off. */
  readonly sub: string;
  readonly method: string;
  readonly params: JsonObject;
  /** The configured endpoint the request came in on; absent: the default one. */
  readonly endpoint?: string;
}

export type Unsealed = { readonly ok: true; readonly body: StateBody } | { readonly ok: false; readonly reason: string };

export class RequestStateSealer {
  readonly #key: Buffer;

  /**
   * `secret` is any string of enough entropy (the key is derived from it); without one a random
   * key is made, which only this process knows: fine for one replica, not for several.
   */
  constructor(
    secret: string | undefined,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    const material = secret === undefined ? randomBytes(32) : Buffer.from(secret, 'utf8');
    this.#key = Buffer.from(hkdfSync('sha256', material, 'switchboard', 'mrtr-request-state', 32));
  }

  seal(body: StateBody, binding: RequestBinding): string {
    const payload = { v: VERSION, b: body, s: binding.sub, m: binding.method, d: paramsDigest(binding.params), e: this.now() + this.ttlMs, ...(binding.endpoint !== undefined && { n: binding.endpoint }) };
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const sealed = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  unseal(state: unknown, binding: RequestBinding): Unsealed {
    if (typeof state !== 'string' || state.length > MAX_STATE_CHARS || !/^[A-Za-z0-9_-]+$/.test(state)) {
      return { ok: false, reason: 'requestState is not one this gateway issued' };
    }
    const bytes = Buffer.from(state, 'base64url');
    // The last character of unpadded base64 can carry bits the decoder drops, so another string can
    // decode to the same bytes: only the exact encoding the gateway issued is its state.
    if (bytes.length <= IV_BYTES + TAG_BYTES || bytes.toString('base64url') !== state) {
      return { ok: false, reason: 'requestState is not one this gateway issued (altered or truncated)' };
    }
    let payload: unknown;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, IV_BYTES));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
      payload = JSON.parse(plain.toString('utf8'));
    } catch {
      return { ok: false, reason: 'requestState failed verification (altered, or issued by another gateway)' };
    }
    if (!isJsonObject(payload) || payload.v !== VERSION || !isStateBody(payload.b)) {
      return { ok: false, reason: 'requestState is not one this gateway issued' };
    }
    if (typeof payload.e !== 'number' || payload.e <= this.now()) return { ok: false, reason: 'requestState has expired; send the request again without it' };
    if (payload.s !== binding.sub) return { ok: false, reason: 'requestState was issued to another principal' };
    // A call started on one endpoint goes on there only: another endpoint may not offer its tool.
    if (payload.n !== binding.endpoint) return { ok: false, reason: 'requestState was issued on another endpoint' };
    if (payload.m !== binding.method || payload.d !== paramsDigest(binding.params)) {
      return { ok: false, reason: 'requestState belongs to a different request (method or params differ)' };
    }
    return { ok: true, body: payload.b };
  }
}

/** SHA-256 of the params that make the request what it is, in a canonical form. */
export function paramsDigest(params: JsonObject): string {
  const salient: JsonObject = {};
  for (const key of Object.keys(params).sort()) {
    if (!RETRY_ONLY_PARAMS.has(key)) salient[key] = params[key];
  }
  return createHash('sha256').update(canonicalJson(salient)).digest('base64url');
}

/** JSON with object keys sorted at every depth, so equal values digest equally. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isJsonObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function isStateBody(value: unknown): value is StateBody {
  if (!isJsonObject(value)) return false;
  if (value.kind === 'park') return typeof value.replica === 'string' && typeof value.park === 'string' && typeof value.round === 'number';
  if (value.kind === 'url') return typeof value.server === 'string' && typeof value.round === 'number' && typeof value.poll === 'boolean';
  if (value.kind === 'relay') return typeof value.server === 'string' && (value.upstreamState === undefined || typeof value.upstreamState === 'string');
  return false;
}
