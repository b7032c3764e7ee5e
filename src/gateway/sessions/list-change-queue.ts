// List changes that could not be announced because the store did not answer (Redis down, frozen,
// failing over): kept, and announced once it answers again, so that a tool added upstream during an
// outage still reaches every session and listen, once. One entry per kind and server: changes that
// pile up during an outage chain into one (the first's before, the last's after), which is also
// what another replica that saw them computes, so the claim still picks one announcer.
//
// An entry remembers how far its announcement got (claimed, listens told), so a retry does not
// repeat a step that succeeded: the claim is asked again under the same claimant (Bus.claimChange),
// and listens already told are not told again.
import { randomBytes } from 'node:crypto';
import type { ListKind } from '../catalogue/catalog.js';
import type { CatalogView } from '../catalogue/catalog-view.js';

/** How often kept changes are tried again: a store back from an outage hears from us within this. */
export const RETRY_MS = 500;

export interface PendingChange {
  readonly kind: ListKind;
  /** The server whose change every replica saw (claimed across replicas); undefined: announced by this replica alone. */
  readonly server: string | undefined;
  /** Digests of the server's lists of this kind before the first change and after the last. */
  digest: { readonly before: string; after: string };
  readonly before: CatalogView;
  after: CatalogView;
  /** Names this announcement to the claim, across retries. */
  readonly claimant: string;
  claimed: boolean;
  listensTold: boolean;
  /** Being tried now: a later change waits behind it rather than change it under the attempt. */
  attempting: boolean;
  /** Whether an attempt has failed for want of the store (counted once as deferred). */
  deferred: boolean;
}

export class ListChangeQueue {
  readonly #pending = new Map<string, PendingChange[]>();
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  /** A change came while a round ran: another round at once, not after RETRY_MS. */
  #again = false;
  #stopped = false;

  constructor(
    /** Announces one change; true when done (or nothing to do), false to keep it for a retry. */
    private readonly attempt: (change: PendingChange) => Promise<boolean>,
  ) {}

  get size(): number {
    let size = 0;
    for (const changes of this.#pending.values()) size += changes.length;
    return size;
  }

  /**
   * A new change: chained onto the last kept one of its kind and server when that has not begun to
   * be announced (nothing claimed, no listen told), else tried on its own, after any kept ones.
   */
  add(kind: ListKind, server: string | undefined, digest: { before: string; after: string }, before: CatalogView, after: CatalogView): void {
    const key = `${kind}\u0000${server ?? ''}`;
    const queued = this.#pending.get(key);
    const last = queued?.at(-1);
    if (last && !last.attempting && !last.claimed && !last.listensTold) {
      last.after = after;
      last.digest.after = digest.after;
      return;
    }
    const change: PendingChange = {
      kind,
      server,
      digest: { ...digest },
      before,
      after,
      claimant: randomBytes(9).toString('base64url'),
      claimed: false,
      listensTold: false,
      attempting: false,
      deferred: false,
    };
    if (queued) queued.push(change);
    else this.#pending.set(key, [change]);
    void this.#run();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#pending.clear();
  }

  /** Tries each kind and server's kept changes in order; what the store could not take waits for the next round. */
  async #run(): Promise<void> {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = true;
    this.#again = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    try {
      await Promise.all(
        [...this.#pending.entries()].map(async ([key, queued]) => {
          while (queued.length > 0 && !this.#stopped) {
            const change = queued[0]!;
            change.attempting = true;
            const done = await this.attempt(change).finally(() => (change.attempting = false));
            if (!done) return;
            queued.shift();
          }
          if (this.#pending.get(key) === queued) this.#pending.delete(key);
        }),
      );
    } finally {
      this.#running = false;
    }
    if (this.#stopped) return;
    if (this.#again) {
      void this.#run();
    } else if (this.size > 0) {
      this.#timer = setTimeout(() => void this.#run(), RETRY_MS);
      this.#timer.unref();
    }
  }
}
