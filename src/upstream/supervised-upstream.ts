// An upstream that keeps itself connected: the first attempt starts at once, a failed start or a
// dropped connection is retried with capped exponential backoff and jitter, and requests made while
// it is down fail fast with an error that names the server instead of waiting. A live connection
// is pinged (health-check.ts) and dropped when a ping fails or when requests keep failing to reach
// it (circuit.ts); either way it is reconnected like a crashed one.
import type { Logger } from '../observe/logger.js';
import { copyWith } from '../protocol/copy-with.js';
import type { UpstreamConfig } from '../config/schema.js';
import { CarriedStateRecorder } from './carried-state.js';
import { ConsecutiveFailures } from './circuit.js';
import { openConnection, type UpstreamConnection } from './connection.js';
import { UpstreamAuthChallengeError, upstreamError, UpstreamRpcError, UpstreamUnavailableError } from './errors.js';
import type { ChallengeListener } from './challenges.js';
import type { SuppliedTransports } from './supplied-transports.js';
import { DEFAULT_PING, startPinging, type PingOptions } from './health-check.js';
import type {
  CallerCredential,
  JsonObject,
  ServerRequestHandler,
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
/** Consecutive requests that could not reach a live connection before it is dropped and reconnected. */
const DEFAULT_CIRCUIT_THRESHOLD = 5;

export interface SupervisionOptions {
  readonly backoff?: BackoffOptions;
  /** Periodic pings of a live connection; false turns them off. */
  readonly ping?: PingOptions | false;
  readonly circuitThreshold?: number;
  /** An upstream HTTP session to continue instead of initializing a new one (see connection.ts). */
  readonly resumeSessionId?: string;
  /** The upstream HTTP session belongs to a gateway session and outlives each connection (see connection.ts). */
  readonly keepsUpstreamSession?: boolean;
  /** The caller's credential, for a connection of one caller's own (per-user credentials). */
  readonly credential?: () => CallerCredential;
  /** Told of each 401/403 challenge the upstream sends (a metric counts them). */
  readonly onAuthChallenge?: ChallengeListener;
  /** Transports that code hands over in place of stdio children (supplied-transports.ts): tests' in-memory upstreams. */
  readonly suppliedTransports?: SuppliedTransports;
}

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
  #serverRequestHandler: ServerRequestHandler | undefined;
  readonly #resume: string | undefined;
  readonly #keepsUpstreamSession: boolean;
  readonly #credential: (() => CallerCredential) | undefined;
  readonly #onAuthChallenge: ChallengeListener | undefined;
  readonly #suppliedTransports: SuppliedTransports | undefined;
  /** The last attempt refused the gateway's credentials: what requests meanwhile are told. */
  #refusal: UpstreamAuthChallengeError | undefined;
  readonly #logger: Logger;
  readonly backoff: BackoffOptions;
  readonly #ping: PingOptions | false;
  readonly #failures: ConsecutiveFailures;
  #stopPinging: (() => void) | undefined;
  /** What each new connection asks of the upstream again (carried-state.ts). */
  readonly #carried = new CarriedStateRecorder();
  /** Connections lost or dropped on request (restart()) since start: the status page shows it. */
  #restarts = 0;
  /** Bumped by restart(): a connection attempt of an earlier generation that ends later is discarded. */
  #generation = 0;

  constructor(
    readonly name: string,
    readonly config: UpstreamConfig,
    logger: Logger,
    options: SupervisionOptions = {},
  ) {
    this.#logger = logger.child({ server: name });
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.#ping = options.ping ?? DEFAULT_PING;
    this.#resume = options.resumeSessionId;
    this.#keepsUpstreamSession = options.keepsUpstreamSession === true;
    this.#credential = options.credential;
    this.#onAuthChallenge = options.onAuthChallenge;
    this.#suppliedTransports = options.suppliedTransports;
    this.#failures = new ConsecutiveFailures(options.circuitThreshold ?? DEFAULT_CIRCUIT_THRESHOLD);
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
      ...(this.#info && { transport: this.#info.transport, protocolVersion: this.#info.protocolVersion }),
      restarts: this.#restarts,
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
    this.#stopPinging?.();
    const connection = this.#connection;
    this.#connection = undefined;
    this.#setState('stopped');
    this.#markSettled();
    await connection?.close().catch(() => {});
  }

  whenSettled(): Promise<void> {
    return this.#settled;
  }

  /**
   * Drops the connection, whatever its state, and connects anew at once (an operator's restart):
   * counted as a restart; requests in flight on the old connection fail with the unavailable error,
   * and a stdio child is closed (stdin, SIGTERM, SIGKILL) while its replacement starts. Resolves
   * when the new connection attempt has ended, whether it succeeded or not.
   */
  async restart(): Promise<void> {
    if (this.#state === 'stopped') throw new UpstreamUnavailableError(this.name, 'it is stopped');
    this.#generation += 1;
    clearTimeout(this.#retryTimer);
    this.#stopPinging?.();
    this.#stopPinging = undefined;
    const connection = this.#connection;
    this.#connection = undefined;
    this.#restarts += 1;
    this.#attempt = 0;
    this.#lastError = 'restarted by an operator';
    this.#logger.warn('upstream restart requested; reconnecting');
    this.#setState('connecting');
    void connection?.close().catch(() => {});
    await this.#connect();
  }

  unavailability(): Error | undefined {
    if (this.#connection && this.#state === 'ready') return undefined;
    return this.#refusal ?? new UpstreamUnavailableError(this.name, this.#whyUnavailable());
  }

  async request(method: string, params: JsonObject | undefined, options: UpstreamRequestOptions = {}): Promise<JsonObject> {
    const connection = this.#connection;
    if (!connection || this.#state !== 'ready') throw this.unavailability() ?? new UpstreamUnavailableError(this.name, this.#whyUnavailable());
    try {
      const result = await connection.request(method, params, copyWith(options, { timeoutMs: options.timeoutMs ?? this.config.timeoutMs }));
      if (this.#connection === connection) this.#failures.succeeded();
      this.#carried.succeeded(method, params);
      return result;
    } catch (error) {
      this.#countFailure(connection, error);
      throw error;
    }
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

  setServerRequestHandler(handler: ServerRequestHandler): void {
    this.#serverRequestHandler = handler;
  }

  onStateChange(listener: (state: UpstreamState) => void): () => void {
    this.#stateListeners.add(listener);
    return () => this.#stateListeners.delete(listener);
  }

  async #connect(): Promise<void> {
    const generation = this.#generation;
    try {
      const connection = await openConnection({
        name: this.name,
        config: this.config,
        // Only the first connection continues the recorded session; a reconnect starts afresh.
        ...(this.#resume !== undefined && this.#info === undefined && { resumeSessionId: this.#resume }),
        keepsUpstreamSession: this.#keepsUpstreamSession,
        ...(this.#credential && { credential: this.#credential }),
        ...(this.#onAuthChallenge && { onAuthChallenge: this.#onAuthChallenge }),
        ...(this.#suppliedTransports && { suppliedTransports: this.#suppliedTransports }),
        carried: this.#carried.snapshot(),
        logger: this.#logger,
        handlers: {
          onNotification: (notification) => {
            if (this.#connection === connection) this.#emitNotification(notification);
          },
          onServerRequest: (request) => {
            const handler = this.#serverRequestHandler;
            if (!handler) throw upstreamError(this.name, 'MethodNotFound', request.method);
            return handler(request);
          },
          onClosed: (reason) => {
            if (this.#connection === connection) this.#onConnectionLost(reason);
          },
        },
      });
      if (this.#state === 'stopped' || generation !== this.#generation) {
        await connection.close().catch(() => {});
        return;
      }
      this.#connection = connection;
      this.#info = connection.info;
      this.#attempt = 0;
      this.#lastError = undefined;
      this.#refusal = undefined;
      this.#failures.succeeded();
      this.#watchHealth(connection);
      this.#logger.info(
        {
          transport: connection.info.transport,
          era: connection.info.era,
          protocolVersion: connection.info.protocolVersion,
          upstream: connection.info.serverInfo,
        },
        'upstream connected',
      );
      this.#setState('ready');
    } catch (error) {
      if (this.#state === 'stopped' || generation !== this.#generation) return;
      // The reason alone: every reader of it (the log line, /readyz, the status page, the error
      // unavailability() makes of it) names the server already.
      this.#lastError =
        error instanceof UpstreamUnavailableError || error instanceof UpstreamAuthChallengeError ? error.reason : error instanceof Error ? error.message : String(error);
      this.#refusal = error instanceof UpstreamAuthChallengeError ? error : undefined;
      this.#scheduleRetry();
    } finally {
      this.#markSettled();
    }
  }

  /** Pings the live connection; one that does not answer is dropped and reconnected. */
  #watchHealth(connection: UpstreamConnection): void {
    this.#stopPinging?.();
    this.#stopPinging = undefined;
    if (this.#ping === false) return;
    this.#stopPinging = startPinging(
      (timeoutMs) => connection.ping(timeoutMs),
      this.#ping,
      (reason) => this.#abandon(connection, reason),
    );
  }

  /**
   * Counts a request that did not reach the upstream (an answer, even an error, proves it alive; a
   * timeout may be one slow tool, and hangs are the pings' business). At the threshold the circuit
   * opens: the connection is dropped, requests fail fast, reconnect attempts probe the upstream.
   */
  #countFailure(connection: UpstreamConnection, error: unknown): void {
    if (this.#connection !== connection) return;
    if (error instanceof UpstreamRpcError) this.#failures.succeeded();
    else if (error instanceof UpstreamUnavailableError && this.#failures.failed()) {
      this.#abandon(connection, `circuit open after ${this.#failures.threshold} consecutive failures (last: ${error.reason})`);
    }
  }

  /** Gives up on a connection that still looks open: reconnects now, closes the old one meanwhile. */
  #abandon(connection: UpstreamConnection, reason: string): void {
    if (this.#connection !== connection) return;
    this.#onConnectionLost(reason);
    // Closing a hung stdio child takes seconds (stdin, then SIGTERM, then SIGKILL); the new one need not wait.
    void connection.close().catch(() => {});
  }

  #onConnectionLost(reason: string): void {
    this.#stopPinging?.();
    this.#stopPinging = undefined;
    this.#connection = undefined;
    this.#restarts += 1;
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
