// The face an upstream shows the gateway. No client SDK types cross this line (design.md).
//
// One interface for both protocol eras. Each connection negotiates its upstream's era once
// (server/discover, falling back to initialize) and then offers the gateway the same requests
// and notifications whichever era it landed on:
//   - 2025 ("legacy") upstream: everything as the 2025 spec has it.
//   - 2026-07-28 ("modern") upstream: the connection speaks the modern wire for the gateway;
//     what the gateway sends in 2025 terms is translated (resources/subscribe and logging/setLevel,
//     see modern-requests.ts; list changes and resource updates arrive through onNotification as
//     from a 2025 upstream, see modern-listens.ts). What has no translation is the gateway's to
//     handle: an `input_required` result (see Upstream.request).

import type { Cancellation } from '../protocol/cancellation.js';

export type UpstreamState = 'connecting' | 'ready' | 'failed' | 'stopped';

/** `modern`: 2026-07-28 or later (per-request `_meta`, no session); `legacy`: initialize-based (2025-11-25 and earlier). */
export type UpstreamEra = 'modern' | 'legacy';

export interface UpstreamInfo {
  readonly era: UpstreamEra;
  /** The negotiated version: 2026-07-28 for a modern upstream, the initialize answer's for a legacy one. */
  readonly protocolVersion: string | undefined;
  readonly serverInfo: { readonly name: string; readonly version: string } | undefined;
  /** From server/discover (modern) or initialize (legacy). */
  readonly capabilities: Readonly<Record<string, unknown>>;
  readonly instructions: string | undefined;
  /** The upstream's Mcp-Session-Id, for a Streamable HTTP server that issued one. */
  readonly sessionId?: string;
  /** Which wire the connection landed on: 'stdio', 'streamable-http' or 'sse'. */
  readonly transport: 'stdio' | 'streamable-http' | 'sse';
}

export interface UpstreamNotification {
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

/** A request the upstream sends to its client (sampling, elicitation, roots/list). */
export interface UpstreamServerRequest {
  readonly method: string;
  readonly params?: JsonObject;
  /** Aborted when the upstream cancels the request or the connection ends. */
  readonly signal: AbortSignal;
}

export type ServerRequestHandler = (request: UpstreamServerRequest) => Promise<JsonObject>;

export interface ProgressUpdate {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

export interface UpstreamRequestOptions {
  /** Aborting cancels the upstream request (notifications/cancelled goes upstream). */
  readonly signal?: AbortSignal;
  /** The same as `signal`, for a caller that has no AbortSignal to spare (protocol/cancellation.ts). */
  readonly cancel?: Cancellation;
  /** Overrides the server's configured timeoutMs. */
  readonly timeoutMs?: number;
  /** When set, the upstream is asked for progress and each update is passed here. */
  readonly onProgress?: (update: ProgressUpdate) => void;
}

export type JsonObject = Record<string, unknown>;

/**
 * What one caller's own connection presents to its upstream (per-user credentials): HTTP headers,
 * read again for every request so a renewed token goes out at once, and a process's environment,
 * read when the process starts. The config's own headers and env still apply; these win.
 */
export interface CallerCredential {
  readonly headers: Readonly<Record<string, string>>;
  readonly env: Readonly<Record<string, string>>;
}

export interface UpstreamStatus {
  readonly state: UpstreamState;
  readonly transport?: string;
  /** The version the last successful connection negotiated (shown in /readyz). */
  readonly protocolVersion?: string;
  readonly lastError?: string;
  readonly since: string;
  /** Connections lost (and reconnected) or restarted by an operator since the gateway started. */
  readonly restarts?: number;
}

export interface Upstream {
  /** The server's config name. */
  readonly name: string;
  readonly state: UpstreamState;
  /** What the server said at initialize or server/discover; undefined until the first connection succeeds. */
  readonly info: UpstreamInfo | undefined;
  status(): UpstreamStatus;
  /**
   * Why it is not ready, as the error a request would get now: the upstream refused the gateway's
   * credentials (UpstreamAuthChallengeError), or it is unavailable. Undefined while ready.
   */
  unavailability(): Error | undefined;
  /**
   * Sends one request and resolves with the upstream's result object, untouched. Rejects with an
   * error from ./errors.ts (a method the upstream's era lacks: UpstreamRpcError -32601).
   *
   * Modern upstream, what differs:
   *   - `tools/call`, `prompts/get` and `resources/read` may resolve with an InputRequiredResult,
   *     as the upstream sent it: `{resultType: 'input_required', inputRequests?, requestState?,
   *     _meta?}`. Nothing is fulfilled here. The gateway gets the input (from its client) and
   *     retries: the same method and params plus top-level `inputResponses` (keyed as
   *     `inputRequests` was) and `requestState` byte for byte; the retry goes out as given.
   *     A complete result comes without `resultType` (as from a 2025 upstream) and may carry
   *     `_meta["io.modelcontextprotocol/serverInfo"]`, and on lists `ttlMs`/`cacheScope`.
   *   - `params._meta` goes out as given, and its keys win over the envelope the client SDK adds
   *     (`io.modelcontextprotocol/protocolVersion`, `.../clientInfo`, `.../clientCapabilities`):
   *     set `io.modelcontextprotocol/clientCapabilities` to the calling client's own capabilities
   *     (the gateway's are sampling, elicitation and roots, which it can relay only to a client
   *     that has them), and `io.modelcontextprotocol/logLevel` to the caller's level.
   *   - `resources/subscribe` / `resources/unsubscribe` are kept by the connection (one
   *     subscriptions/listen for the subscribed URIs) and answered `{}`; `logging/setLevel` is
   *     answered `{}` and its level goes on every later request without a logLevel of its own.
   * Either era: resource subscriptions and the log level set here outlive a reconnect (the new
   * connection asks for them again, see carried-state.ts).
   */
  request(method: string, params: JsonObject | undefined, options?: UpstreamRequestOptions): Promise<JsonObject>;
  /**
   * Sends a notification. A notification the upstream's era does not have (roots/list_changed
   * to a modern upstream, which asks for roots per request instead) is dropped.
   */
  notify(method: string, params?: JsonObject): Promise<void>;
  /**
   * Notifications the upstream sends (list_changed, message, resources/updated, ...), in 2025
   * shape whatever the era: a modern upstream's listen news comes without its subscriptionId.
   */
  onNotification(listener: (notification: UpstreamNotification) => void): () => void;
  /**
   * Answers the upstream's own requests (sampling/createMessage, elicitation/create, roots/list).
   * One handler; without one the upstream gets "method not found". Only legacy upstreams send
   * these; a modern one asks through an `input_required` result instead (see request()).
   */
  setServerRequestHandler(handler: ServerRequestHandler): void;
  /** Called after every state change, e.g. to refresh the catalog when the server (re)connects. */
  onStateChange(listener: (state: UpstreamState) => void): () => void;
  /** Resolves when the first connection attempt has ended, whether it succeeded or not. */
  whenSettled(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
  /**
   * Drops the connection and connects anew (the admin API's restart); resolves when that attempt
   * has ended. Absent on upstreams that cannot be restarted on their own.
   */
  restart?(): Promise<void>;
}
