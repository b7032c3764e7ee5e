// The seam between the gateway and where sessions live. Two implementations: memory (one process)
// and Redis (any replica can serve any request). Both pass the same contract suite
// (test/integration/session-store.contract.test.ts).

/** What the gateway keeps about one MCP session, in the store so that any replica can serve it. */
export interface SessionRecord {
  /** 128-bit random, base64url: the `Mcp-Session-Id` header value. */
  readonly id: string;
  /** The principal that created the session (token `sub`); undefined when auth is off. */
  readonly principal?: string;
  /** The protocol version negotiated at initialize. */
  readonly protocolVersion: string;
  readonly clientInfo: { readonly name: string; readonly version: string; readonly [key: string]: unknown };
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  /** The level the client asked for with logging/setLevel; absent means the upstreams' default. */
  readonly logLevel?: string;
  /** Exposed resource URIs the client subscribed to. */
  readonly subscriptions: readonly string[];
  /** Upstream HTTP session ids for `isolation: session` servers, by server name. */
  readonly upstreamSessions: Readonly<Record<string, string>>;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  /**
   * Which policy decisions apply to the session's principal (equal keys, equal views), so a
   * catalogue change is announced only to sessions whose own view changed. No claims are kept.
   */
  readonly accessKey?: string;
  /**
   * The configured endpoint the session was started on; absent: the default one (server.path).
   * The session exists only there: on any other endpoint its id is unknown (404).
   */
  readonly endpoint?: string;
  /**
   * The session made a request after initialize. Until it does, a store given
   * `unusedIdleTimeoutSeconds` expires it after that (shorter) idle time: a client that
   * initializes and walks away costs minutes, not the whole idle timeout.
   */
  readonly used?: boolean;
}

/** The fields a running session may change; upstreamSessions is merged key by key (apply-patch.ts). */
export type SessionPatch = Partial<Pick<SessionRecord, 'logLevel' | 'subscriptions' | 'upstreamSessions' | 'used'>>;

export interface SessionCreateOptions {
  /**
   * At most this many live sessions of the record's principal, the new one included: the least
   * recently used of the others are deleted to make room, in the same atomic step (so replicas
   * creating sessions of one principal at once agree). Absent, or a record without a principal:
   * no cap.
   */
  readonly principalCap?: number;
}

export interface SessionStore {
  /** Which implementation this is, for logs and readyz. */
  readonly kind: 'memory' | 'redis';
  /**
   * Stores a new session; it expires after the idle timeout unless touched (the shorter
   * `unusedIdleTimeoutSeconds` until a patch marks it used). Returns the sessions the principal's
   * cap deleted to make room (their records as they were), for the caller to end.
   */
  create(record: SessionRecord, options?: SessionCreateOptions): Promise<readonly SessionRecord[]>;
  /**
   * Loads a session and slides its idle timeout, in one round trip. Undefined when the session is
   * unknown, expired or deleted.
   */
  get(id: string): Promise<SessionRecord | undefined>;
  /**
   * Applies a patch; returns the new record, or undefined when the session is gone. Every patch
   * comes from a request of the session, so from here on the full idle timeout applies.
   */
  update(id: string, patch: SessionPatch): Promise<SessionRecord | undefined>;
  /** Deletes a session; true when it existed. */
  delete(id: string): Promise<boolean>;
  /** Counts live sessions (for the sessions gauge). */
  count(): Promise<number>;
  /** Ids of all live sessions, for notifications that go to every session (list_changed). */
  listIds(): Promise<string[]>;
  /** Loads several sessions without sliding their idle timeout (a notification is not use). */
  peekMany(ids: readonly string[]): Promise<(SessionRecord | undefined)[]>;
  /** Resolves when the store answers; rejects with a clear error otherwise (readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface SessionStoreOptions {
  idleTimeoutSeconds: number;
  /** The idle timeout of a session not yet marked `used`; absent, or not shorter: the same as idleTimeoutSeconds. */
  unusedIdleTimeoutSeconds?: number;
}
