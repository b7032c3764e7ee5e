// An upstream that keeps itself connected: the first attempt starts at once, a failed start or a
// dropped connection is retried with capped exponential backoff and jitter, and requests made while
// it is down fail fast with an error that names the server instead of waiting.
import type { Logger } from '../observe/logger.js';
import type { UpstreamConfig } from '../config/schema.js';
import { openConnection, type UpstreamConnection } from './connection.js';
import { UpstreamUnavailableError } from './errors.js';
import type {
  JsonObject,
  Upstream,
  UpstreamInfo,
  UpstreamNotification,
  UpstreamRequestOptions,
  UpstreamState,
  UpstreamStatus,
} from './types.js';

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
}

const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 500, maxMs: 30_000 };

export class SupervisedUpstream implements Upstream {
  #state: UpstreamState = 'stopped';
  #since = new Date();
  #connection: UpstreamConnection | undefined;
  #info: UpstreamInfo | undefined;
  #lastError: string | undefined;
  #attempt = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  #settled: Promise<void>;
  #markSettled: () => void = () => {};
  readonly #notificationListeners = new Set<(notification: UpstreamNotification) => void>();
  readonly #stateListeners = new Set<(state: UpstreamState) => void>();
  readonly #logger: Logger;

  constructor(
    readonly name: string,
    readonly config: UpstreamConfig,
    logger: Logger,
    private readonly backoff: BackoffOptions = DEFAULT_BACKOFF,
  ) {
    this.#logger = logger.child({ server: name });
    this.#settled = new Promise((resolve) => (this.#markSettled = resolve));
  }

  get state(): UpstreamState {
    return this.#state;
  }

  get info(): UpstreamInfo | undefined {
    return this.#info;
  }

  status(): UpstreamStatus {
    return {
      state: this.#state,
      since: this.#since.toISOString(),
      ...(this.#info && { transport: this.#info.transport }),
      ...(this.#lastError !== undefined && this.#state !== 'ready' && { lastError: this.#lastError }),
    };
  }

  start(): void {
    if (this.#state !== 'stopped') return;
    this.#setState('connecting');
    void this.#connect();
  }

  async stop(): Promise<void> {
    clearTimeout(this.#retryTimer);
    const connection = this.#connection;
    this.#connection = undefined;
    this.#setState('stopped');
    this.#markSettled();
    await connection?.close().catch(() => {});
  }

  whenSettled(): Promise<void> {
    return this.#settled;
  }

  async request(method: string, params: JsonObject | undefined, options: UpstreamRequestOptions = {}): Promise<JsonObject> {
    const connection = this.#connection;
    if (!connection || this.#state !== 'ready') throw new UpstreamUnavailableError(this.name, this.#whyUnavailable());
    return connection.request(method, params, { ...options, timeoutMs: options.timeoutMs ?? this.config.timeoutMs });
  }

  async notify(method: string, params?: JsonObject): Promise<void> {
    const connection = this.#connection;
    if (!connection || this.#state !== 'ready') throw new UpstreamUnavailableError(this.name, this.#whyUnavailable());
    await connection.notify(method, params);
  }

  onNotification(listener: (notification: UpstreamNotification) => void): () => void {
    this.#notificationListeners.add(listener);
    return () => this.#notificationListeners.delete(listener);
  }

  onStateChange(listener: (state: UpstreamState) => void): () => void {
    this.#stateListeners.add(listener);
    return () => this.#stateListeners.delete(listener);
  }

  async #connect(): Promise<void> {
    try {
      const connection = await openConnection({
        name: this.name,
        config: this.config,
        logger: this.#logger,
        handlers: {
          onNotification: (notification) => {
            if (this.#connection === connection) this.#emitNotification(notification);
          },
          onClosed: (reason) => {
            if (this.#connection === connection) this.#onConnectionLost(reason);
          },
        },
      });
      if (this.#state === 'stopped') {
        await connection.close().catch(() => {});
        return;
      }
      this.#connection = connection;
      this.#info = connection.info;
      this.#attempt = 0;
      this.#lastError = undefined;
      this.#logger.info(
        { transport: connection.info.transport, protocolVersion: connection.info.protocolVersion, upstream: connection.info.serverInfo },
        'upstream connected',
      );
      this.#setState('ready');
    } catch (error) {
      if (this.#state === 'stopped') return;
      this.#lastError = error instanceof Error ? error.message : String(error);
      this.#scheduleRetry();
    } finally {
      this.#markSettled();
    }
  }

  #onConnectionLost(reason: string): void {
    this.#connection = undefined;
    this.#lastError = `${reason}`;
    this.#logger.warn({ reason }, 'upstream connection lost; reconnecting');
    this.#scheduleRetry();
  }

  #scheduleRetry(): void {
    const ceiling = Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** this.#attempt);
    // Full jitter in the upper half: replicas that lost the same upstream do not retry in step.
    const delayMs = Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
    this.#attempt += 1;
    this.#logger.warn({ error: this.#lastError, attempt: this.#attempt, retryInMs: delayMs }, 'upstream unavailable');
    this.#setState('failed');
    this.#retryTimer = setTimeout(() => {
      if (this.#state === 'stopped') return;
      this.#setState('connecting');
      void this.#connect();
    }, delayMs);
    this.#retryTimer.unref();
  }

  #whyUnavailable(): string {
    if (this.#state === 'stopped') return 'it is stopped';
    return this.#lastError ?? 'it is still connecting';
  }

  #setState(state: UpstreamState): void {
    if (state === this.#state) return;
    this.#state = state;
    this.#since = new Date();
    for (const listener of this.#stateListeners) listener(state);
  }

  #emitNotification(notification: UpstreamNotification): void {
    for (const listener of this.#notificationListeners) {
      try {
        listener(notification);
      } catch (error) {
        this.#logger.error({ err: error, method: notification.method }, 'notification listener failed');
      }
    }
  }
}
