// Refusals remembered for a few seconds, in this process only. An agent retrying in a loop, or
// firing a dozen calls at once, with a token the identity provider refuses would otherwise send each
// of them to the provider, which may count them against the client's rate limit or lock it out.
// Keyed by the caller's token (a digest of it), not by who they are: a caller who comes back with a
// new token, once the problem is fixed, is asked about at once. Kept briefly so that a fix on the
// provider's side (a grant, a policy) takes effect within seconds. Never shared through Redis: a
// refusal is cheap to learn again, and a stale one across replicas would be hard to explain.
import { createHash } from 'node:crypto';
import type { CredentialRefusedError } from './errors.js';

/** Enough for a burst of retries; bounded so a stream of bad tokens cannot grow it. */
const MAX_ENTRIES = 1_000;

export class RecentRefusals {
  readonly #refusals = new Map<string, { readonly error: CredentialRefusedError; readonly until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  remember(key: string, subjectToken: string, error: CredentialRefusedError): void {
    if (this.ttlMs <= 0) return;
    const entryKey = entryKeyOf(key, subjectToken);
    this.#refusals.delete(entryKey);
    this.#refusals.set(entryKey, { error, until: this.now() + this.ttlMs });
    // Insertion order is age order: the oldest go first.
    for (const oldest of this.#refusals.keys()) {
      if (this.#refusals.size <= MAX_ENTRIES) break;
      this.#refusals.delete(oldest);
    }
  }

  recall(key: string, subjectToken: string): CredentialRefusedError | undefined {
    if (this.ttlMs <= 0 || this.#refusals.size === 0) return undefined;
    const entryKey = entryKeyOf(key, subjectToken);
    const refusal = this.#refusals.get(entryKey);
    if (refusal === undefined) return undefined;
    if (refusal.until > this.now()) return refusal.error;
    this.#refusals.delete(entryKey);
    return undefined;
  }
}

function entryKeyOf(key: string, subjectToken: string): string {
  return createHash('sha256').update(key).update('\0').update(subjectToken).digest('base64url');
}
