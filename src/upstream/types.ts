// The face an upstream shows the gateway. No client SDK types cross this line (design.md).

export type UpstreamState = 'connecting' | 'ready' | 'failed' | 'stopped';

export interface UpstreamInfo {
  readonly protocolVersion: string | undefined;
  readonly serverInfo: { readonly name: string; readonly version: string } | undefined;
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
  /** Overrides the server's configured timeoutMs. */
  readonly timeoutMs?: number;
  /** When set, the upstream is asked for progress and each update is passed here. */
  readonly onProgress?: (update: ProgressUpdate) => void;
}

export type JsonObject = Record<string, unknown>;

export interface UpstreamStatus {
  readonly state: UpstreamState;
  readonly transport?: string;
  readonly lastError?: string;
  readonly since: string;
}

export interface Upstream {
  /** The server's config name. */
  readonly name: string;
  readonly state: UpstreamState;
  /** What the server said at initialize; undefined until the first connection succeeds. */
  readonly info: UpstreamInfo | undefined;
  status(): UpstreamStatus;
  /**
   * Sends one request and resolves with the upstream's result object, untouched. Rejects with an
   * error from ./errors.ts.
   */
  request(method: string, params: JsonObject | undefined, options?: UpstreamRequestOptions): Promise<JsonObject>;
  notify(method: string, params?: JsonObject): Promise<void>;
  /** Notifications the upstream sends (list_changed, message, resources/updated, ...). */
  onNotification(listener: (notification: UpstreamNotification) => void): () => void;
  /**
   * Answers the upstream's own requests (sampling/createMessage, elicitation/create, roots/list).
   * One handler; without one the upstream gets "method not found".
   */
  setServerRequestHandler(handler: ServerRequestHandler): void;
  /** Called after every state change, e.g. to refresh the catalog when the server (re)connects. */
  onStateChange(listener: (state: UpstreamState) => void): () => void;
  /** Resolves when the first connection attempt has ended, whether it succeeded or not. */
  whenSettled(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
}
