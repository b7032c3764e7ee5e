// What the gateway asked of an upstream that the upstream will not remember across connections:
// a restarted 2025 server starts without subscriptions and at its default log level, and a
// 2026-07-28 server keeps no state between connections at all. The supervisor records it from the
// requests that succeeded, and each new connection asks again (era-path.ts), so a reconnect does
// not silently end the resource updates and log messages the gateway's clients asked for.

export interface CarriedState {
  /** Resource URIs subscribed with resources/subscribe and not unsubscribed. */
  readonly subscriptions: readonly string[];
  /** The level of the last logging/setLevel. */
  readonly logLevel?: string;
}

export class CarriedStateRecorder {
  readonly #subscriptions = new Set<string>();
  #logLevel: string | undefined;

  /** A request that succeeded: remembered when it is one a new connection must repeat. */
  succeeded(method: string, params: Readonly<Record<string, unknown>> | undefined): void {
    const uri = params?.uri;
    const level = params?.level;
    if (method === 'resources/subscribe' && typeof uri === 'string') this.#subscriptions.add(uri);
    else if (method === 'resources/unsubscribe' && typeof uri === 'string') this.#subscriptions.delete(uri);
    else if (method === 'logging/setLevel' && typeof level === 'string') this.#logLevel = level;
  }

  snapshot(): CarriedState {
    return { subscriptions: [...this.#subscriptions], ...(this.#logLevel !== undefined && { logLevel: this.#logLevel }) };
  }
}
