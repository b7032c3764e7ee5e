// Token endpoints that could not give a caller a credential (no answer in time, unreachable, an
// answer that is not a token), remembered per caller and server for a short spell, in this process
// only. Without it every request of every caller waits the exchange's timeout again while the
// identity provider struggles, and adds one more request to its load. Keyed by who asks and what
// for, not by their token: a new token does not bring a provider back. The spell grows while the
// failures go on (2 s, 4 s, 8 s, ... at most 30 s) and is forgotten at the first token issued.
import type { CredentialUnavailableError } from './errors.js';

export interface OutageBackoff {
  /** The first spell (ms); 0 remembers nothing. */
  readonly initialMs: number;
  /** The longest spell (ms), reached by doubling. */
  readonly maxMs: number;
}

export const DEFAULT_OUTAGE_BACKOFF: OutageBackoff = { initialMs: 2_000, maxMs: 30_000 };

/** Bounded so a stream of callers cannot grow it without end; the oldest go first. */
const MAX_ENTRIES = 1_000;

interface Outage {
  readonly error: CredentialUnavailableError;
  readonly until: number;
  readonly spellMs: number;
}

export class RecentOutages {
  readonly #outages = new Map<string, Outage>();

  constructor(
    private readonly backoff: OutageBackoff = DEFAULT_OUTAGE_BACKOFF,
    private readonly now: () => number = Date.now,
  ) {}

  remember(key: string, error: CredentialUnavailableError): void {
    if (this.backoff.initialMs <= 0) return;
    const now = this.now();
    const previous = this.#outages.get(key);
    // A failure soon after the last spell ended continues the outage: a longer spell. One long
    // after it is a new outage.
    const continues = previous !== undefined && now - previous.until < this.backoff.maxMs;
    const spellMs = continues ? Math.min(previous.spellMs * 2, this.backoff.maxMs) : this.backoff.initialMs;
    this.#outages.delete(key);
    this.#outages.set(key, { error, until: now + spellMs, spellMs });
    for (const oldest of this.#outages.keys()) {
      if (this.#outages.size <= MAX_ENTRIES) break;
      this.#outages.delete(oldest);
    }
  }

  /** The error to answer with while the spell lasts; kept after it, so the next spell can be longer. */
  recall(key: string): CredentialUnavailableError | undefined {
    if (this.#outages.size === 0) return undefined;
    const outage = this.#outages.get(key);
    return outage !== undefined && outage.until > this.now() ? outage.error : undefined;
  }

  /** A token was issued: the outage is over. */
  forget(key: string): void {
    if (this.#outages.size > 0) this.#outages.delete(key);
  }
}
