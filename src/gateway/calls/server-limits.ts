// limits.servers: what a principal may ask of one server per minute (and of one of its tools), and
// how many calls this replica has in progress at it at once. Checked where a request leaves for
// its upstream (forwarding.ts), so both eras and every handler go through it once.
//
// Which requests count: the ones that reach the server for one item on the caller's behalf,
// tools/call, prompts/get, resources/read and completion/complete. Lists are answered from the
// gateway's catalogue and never reach a server per request; subscribe and unsubscribe are
// bookkeeping, shared between sessions, and refusing an unsubscribe would leak a subscription.
// A 2026 retry that carries its answers to the upstream's own input_required continues a call
// already counted, so it takes a slot but is not counted again.
//
// A server without limits costs one map lookup per request. The counts live behind QuotaLimiter
// (memory, or Redis: one round trip per request, the server's and the tool's quota together).
import { DEFAULT_MAX_QUEUED, DEFAULT_QUEUE_TIMEOUT_MS } from '../../config/schema.js';
import { serverSlug } from '../../config/server-names.js';
import { ConcurrencyGate, GateCancelledError, GateRefusedError, type GateLimits, type Release } from '../../limits/concurrency-gate.js';
import type { Quota, QuotaLimiter } from '../../limits/quota-limiter.js';
import type { Principal } from '../../auth/principal.js';
import type { Cancellation } from '../../protocol/cancellation.js';
import { UpstreamCancelledError } from '../../upstream/errors.js';
import { ERRORS } from '../../protocol/error-catalogue.js';
import { RpcError } from '../errors.js';
import type { JsonObject } from '../../protocol/json.js';

/** One server's entry of limits.servers (the config's shape, defaults applied). */
export interface ServerLimitSettings {
  readonly requestsPerMinute?: number | undefined;
  readonly maxConcurrent?: number | undefined;
  readonly maxQueued?: number | undefined;
  readonly queueTimeoutMs?: number | undefined;
  /** By the upstream's own tool name. */
  readonly tools?: Readonly<Record<string, { readonly requestsPerMinute: number }>> | undefined;
}

/** Why a limit refused a request: the audit line's `reason` and the metric's `kind`. */
export type LimitRefusalReason = 'rate-limit' | 'tool-rate-limit' | 'queue-full' | 'queue-timeout';
export const LIMIT_REFUSAL_REASONS: ReadonlySet<string> = new Set<LimitRefusalReason>(['rate-limit', 'tool-rate-limit', 'queue-full', 'queue-timeout']);

const LIMITED_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read', 'completion/complete']);

/** A busy server frees up in its own time; a second is a polite first retry. */
const BUSY_RETRY_SECONDS = 1;

/**
 * A request refused by a server's limit: a JSON-RPC error naming the server (and the tool), with
 * when to retry in the message and in `data.retryAfterSeconds`.
 */
export class ServerLimitError extends RpcError {
  constructor(
    readonly server: string,
    readonly reason: LimitRefusalReason,
    message: string,
    readonly retryAfterSeconds: number,
    tool?: string,
  ) {
    super(ERRORS.LimitExceeded.code, message, { server, ...(tool !== undefined && { tool }), reason, retryAfterSeconds });
  }
}

/** What the limits need to know of a request on its way out. */
export interface LimitedRequest {
  readonly method: string;
  readonly params: JsonObject;
  /** The tool's name as the client called it (prefixed, or renamed): what a refusal names. */
  readonly calledAs?: string | undefined;
  readonly principal: Principal | undefined;
  /** Fires when the client gives up: a call waiting for a slot leaves the line. */
  readonly cancellation: Cancellation;
  /** A 2026 retry of this server's own input_required: not counted again. */
  readonly continuesCall: boolean;
}

interface LimitQuota extends Quota {
  /** The name the refusal gives the tool: the one the client called. */
  readonly tool?: string;
}

/** One server's limits. */
export class ServerLimit {
  readonly #server: string;
  readonly #key: string;
  readonly #requestsPerMinute: number | undefined;
  readonly #tools: ReadonlyMap<string, number>;
  readonly #limiter: QuotaLimiter | undefined;
  readonly #gate: ConcurrencyGate | undefined;

  constructor(server: string, settings: ServerLimitSettings, limiter: QuotaLimiter | undefined, gate: ConcurrencyGate | undefined) {
    this.#server = server;
    // Keys name the server by its slug, as every Redis key does: renaming `GitHub` to `github` keeps the counts.
    this.#key = `${serverSlug(server)}\u0000`;
    this.#requestsPerMinute = settings.requestsPerMinute;
    this.#tools = new Map(Object.entries(settings.tools ?? {}).map(([tool, limit]) => [tool, limit.requestsPerMinute]));
    this.#limiter = limiter;
    this.#gate = gate;
  }

  /**
   * Lets the request go on, or throws ServerLimitError (or UpstreamCancelledError when the client
   * gave up while it waited). The release, when there is one, must be called when the request is done.
   */
  async admit(request: LimitedRequest): Promise<Release | undefined> {
    if (!LIMITED_METHODS.has(request.method)) return undefined;
    if (!request.continuesCall && this.#limiter !== undefined) {
      const quotas = this.#quotas(request);
      if (quotas.length > 0) {
        const decision = await this.#limiter.hit(quotas);
        if (!decision.allowed) throw this.#rateRefusal(quotas[decision.refusedBy]!, decision.retryAfterSeconds);
      }
    }
    if (this.#gate === undefined) return undefined;
    try {
      return await this.#gate.acquire(request.cancellation);
    } catch (error) {
      if (error instanceof GateCancelledError) throw new UpstreamCancelledError(this.#server, request.method);
      if (error instanceof GateRefusedError) throw this.#busyRefusal(error);
      throw error;
    }
  }

  #quotas({ method, params, calledAs, principal }: LimitedRequest): LimitQuota[] {
    // Without auth there is no principal: unauthenticated callers share one count per server.
    const who = principal === undefined ? 'anonymous' : `sub:${principal.sub}`;
    const quotas: LimitQuota[] = [];
    if (this.#requestsPerMinute !== undefined) quotas.push({ key: `${this.#key}${who}`, limit: this.#requestsPerMinute });
    const tool = method === 'tools/call' && typeof params.name === 'string' ? params.name : undefined;
    const toolLimit = tool === undefined ? undefined : this.#tools.get(tool);
    // Counted and configured by the upstream's own name; the client knows the tool by its exposed one.
    if (tool !== undefined && toolLimit !== undefined) quotas.push({ key: `${this.#key}${who}\u0000${tool}`, limit: toolLimit, tool: calledAs ?? tool });
    return quotas;
  }

  #rateRefusal(quota: LimitQuota, retryAfterSeconds: number): ServerLimitError {
    const server = JSON.stringify(this.#server);
    if (quota.tool === undefined) {
      return new ServerLimitError(
        this.#server,
        'rate-limit',
        `Rate limit of server ${server} reached (${calls(quota.limit)} a minute per principal): retry in ${retryAfterSeconds} s`,
        retryAfterSeconds,
      );
    }
    return new ServerLimitError(
      this.#server,
      'tool-rate-limit',
      `Rate limit of tool ${JSON.stringify(quota.tool)} of server ${server} reached (${calls(quota.limit)} a minute per principal): retry in ${retryAfterSeconds} s`,
      retryAfterSeconds,
      quota.tool,
    );
  }

  #busyRefusal(error: GateRefusedError): ServerLimitError {
    const { maxConcurrent, queueTimeoutMs } = error.limits;
    const why =
      error.reason === 'queue-full'
        ? `${calls(maxConcurrent)} in progress and the queue full`
        : `no call finished within ${queueTimeoutMs} ms to make room (at most ${calls(maxConcurrent)} at once)`;
    return new ServerLimitError(this.#server, error.reason, `Server ${JSON.stringify(this.#server)} is busy: ${why}: retry in ${BUSY_RETRY_SECONDS} s`, BUSY_RETRY_SECONDS);
  }
}

/**
 * Every server's limits, by config name. `configure` takes limits.servers at start and after each
 * reload: a server's gate is kept across reloads (its calls in progress still count), its limits
 * changed in place; a cap a reload removes lets everyone waiting through.
 */
export class ServerLimits {
  #byServer: ReadonlyMap<string, ServerLimit> = new Map();
  readonly #gates = new Map<string, ConcurrencyGate>();
  #limiter: QuotaLimiter | undefined;

  /** `openLimiter` is called once, when a server first has a rate limit. */
  constructor(private readonly openLimiter: () => QuotaLimiter) {}

  /** The server's limits; undefined (the common case) when it has none. */
  of(server: string): ServerLimit | undefined {
    return this.#byServer.get(server);
  }

  configure(servers: Readonly<Record<string, ServerLimitSettings>> | undefined): void {
    const byServer = new Map<string, ServerLimit>();
    const capped = new Set<string>();
    for (const [server, settings] of Object.entries(servers ?? {})) {
      const counted = settings.requestsPerMinute !== undefined || Object.keys(settings.tools ?? {}).length > 0;
      const gate = settings.maxConcurrent === undefined ? undefined : this.#gate(server, gateLimits(settings, settings.maxConcurrent));
      if (gate) capped.add(server);
      if (!counted && !gate) continue;
      byServer.set(server, new ServerLimit(server, settings, counted ? (this.#limiter ??= this.openLimiter()) : undefined, gate));
    }
    for (const [server, gate] of this.#gates) {
      if (capped.has(server)) continue;
      gate.reconfigure({ maxConcurrent: Number.POSITIVE_INFINITY, maxQueued: 0, queueTimeoutMs: 1 });
      this.#gates.delete(server);
    }
    this.#byServer = byServer;
  }

  async close(): Promise<void> {
    await this.#limiter?.close();
  }

  #gate(server: string, limits: GateLimits): ConcurrencyGate {
    const existing = this.#gates.get(server);
    if (existing) {
      existing.reconfigure(limits);
      return existing;
    }
    const gate = new ConcurrencyGate(limits);
    this.#gates.set(server, gate);
    return gate;
  }
}

function gateLimits(settings: ServerLimitSettings, maxConcurrent: number): GateLimits {
  // The schema sets both bounds whenever there is a cap; the same defaults serve callers without it.
  return { maxConcurrent, maxQueued: settings.maxQueued ?? DEFAULT_MAX_QUEUED, queueTimeoutMs: settings.queueTimeoutMs ?? DEFAULT_QUEUE_TIMEOUT_MS };
}

function calls(count: number): string {
  return count === 1 ? '1 call' : `${count} calls`;
}
