// One live connection to one upstream through the official client SDK (v2): the transport for the
// configured kind, the era negotiation (negotiation.ts), and a request path that hands results
// back untouched, the same for both eras (the modern one's differences: era-path.ts).
import { Client, SSEClientTransport, StreamableHTTPClientTransport, type PriorDiscovery, type Transport } from '@modelcontextprotocol/client';
import type { Logger } from '../observe/logger.js';
import { isStdioUpstream, type HttpUpstreamConfig, type StdioUpstreamConfig, type UpstreamConfig } from '../config/schema.js';
import { guardedCommand } from './child-guard.js';
import type { CarriedState } from './carried-state.js';
import { openEraPath, type EraPath } from './era-path.js';
import { passThroughSchemas } from './pass-through.js';
import { UpstreamUnavailableError } from './errors.js';
import { withoutSubscriptionId } from './modern-listens.js';
import { negotiatedInfo, negotiationFor, STDIO_PROBE_TIMEOUT_MS } from './negotiation.js';
import { describeConnectError, errorMessage, isNotInEra, translateRequestError } from './request-errors.js';
import { pipeLinesToLog } from './stderr-log.js';
import { LeanHttpTransport } from './http-transport.js';
import { ConnectionChallenges, type ChallengeListener } from './challenges.js';
import { probeHttpEra } from './http-probe.js';
import { probeStdioEra } from './stdio-probe.js';
import { LeanStdioTransport, type StdioSpawn } from './stdio-transport.js';
import type { SuppliedTransports } from './supplied-transports.js';
import type { CallerCredential, JsonObject, UpstreamInfo, UpstreamNotification, UpstreamRequestOptions, UpstreamServerRequest } from './types.js';
import { GATEWAY_IMPLEMENTATION } from '../version.js';
import { PASSED_EXTENSIONS } from '../protocol/extensions.js';

/** The server-to-client requests the gateway relays to its clients. */
export const RELAYED_SERVER_REQUESTS = ['sampling/createMessage', 'elicitation/create', 'roots/list'] as const;

/**
 * What the gateway tells upstreams it can do as their client: whatever any of its clients may
 * do, since it relays these requests to the client session they belong to (and answers with an
 * error when that client cannot). A modern upstream gets this in each request's envelope unless
 * the gateway names the calling client's own capabilities (see Upstream.request).
 */
const GATEWAY_CLIENT_CAPABILITIES = {
  sampling: {},
  elicitation: { form: {}, url: {} },
  roots: { listChanged: true },
  // The extensions it passes on (MCP Apps): a server that offers its app tools only to hosts that
  // render apps offers them to the gateway, and a host that does not render them ignores `_meta.ui`.
  extensions: PASSED_EXTENSIONS,
};

/**
 * Starting a process and its initialize (or server/discover and the listens) can take seconds on
 * a loaded machine even when the server's calls are quick, so a short per-request timeoutMs does
 * not apply to connecting.
 */
const MIN_CONNECT_TIMEOUT_MS = 30_000;

export interface ConnectionHandlers {
  onNotification(notification: UpstreamNotification): void;
  onServerRequest(request: UpstreamServerRequest): Promise<JsonObject>;
  /** The connection ended for any reason other than close(). */
  onClosed(reason: string): void;
}

export interface UpstreamConnection {
  readonly info: UpstreamInfo;
  request(method: string, params: JsonObject | undefined, options: UpstreamRequestOptions & { timeoutMs: number }): Promise<JsonObject>;
  /** Resolves when the upstream answers a cheap request (ping; server/discover on a modern one). */
  ping(timeoutMs: number): Promise<void>;
  notify(method: string, params?: JsonObject): Promise<void>;
  close(): Promise<void>;
}

export interface OpenConnectionOptions {
  name: string;
  config: UpstreamConfig;
  /**
   * An upstream HTTP session to continue (`isolation: session` on another replica made it): the
   * transport sends this Mcp-Session-Id and the SDK skips initialize.
   */
  resumeSessionId?: string;
  /**
   * The HTTP upstream session belongs to a gateway session (`isolation: session`) and outlives
   * this connection: closing the connection must not end it (DELETE), since another replica, or
   * this one after an idle close, continues it by id.
   */
  keepsUpstreamSession?: boolean;
  /** The caller's credential, for a connection of one caller's own (per-user credentials). */
  credential?: () => CallerCredential;
  /** What earlier connections were asked that this one must ask again. */
  carried?: CarriedState;
  /** Told of each 401/403 challenge the upstream sends. */
  onAuthChallenge?: ChallengeListener;
  /** A transport that code hands over in place of a stdio server's child (supplied-transports.ts). */
  suppliedTransports?: SuppliedTransports;
  logger: Logger;
  handlers: ConnectionHandlers;
}

export async function openConnection(options: OpenConnectionOptions): Promise<UpstreamConnection> {
  const { config } = options;
  if (isStdioUpstream(config)) {
    // No sibling probe: the SDK's own negotiation on the connection finds the era.
    const supplied = options.suppliedTransports?.(options.name);
    if (supplied) return connectWith(options, 'stdio', () => supplied);
    const spec = stdioSpec(config, options.credential?.().env);
    const prior = await probeStdioEra(spec, GATEWAY_CLIENT_CAPABILITIES, STDIO_PROBE_TIMEOUT_MS);
    return connectWith(options, 'stdio', () => stdioTransport(options.name, spec, options.logger), prior);
  }
  const callerHeaders = options.credential && (() => options.credential!().headers);
  const challenges = new ConnectionChallenges(options.name, options.onAuthChallenge);
  if (config.transport === 'sse') return connectWith(options, 'sse', () => sseTransport(config, callerHeaders, challenges), undefined, challenges);
  if (config.transport === 'streamable-http' || options.resumeSessionId !== undefined) return connectStreamable(options, config, callerHeaders, challenges);
  // auto: Streamable HTTP first; a server that predates it gets the legacy HTTP+SSE transport.
  try {
    return await connectStreamable(options, config, callerHeaders, challenges);
  } catch (streamableError) {
    try {
      const connection = await connectWith(options, 'sse', () => sseTransport(config, callerHeaders, challenges), undefined, challenges);
      options.logger.info({ server: options.name }, 'upstream speaks the legacy HTTP+SSE transport');
      return connection;
    } catch {
      throw streamableError;
    }
  }
}

/**
 * How to start a stdio server: through `setpriv --pdeathsig SIGKILL` where there is one, so the
 * child dies with the gateway even when the gateway is killed (child-guard.ts).
 */
function stdioSpec(config: StdioUpstreamConfig, callerEnv: Readonly<Record<string, string>> = {}): Omit<StdioSpawn, 'stderr'> {
  const { command, args } = guardedCommand(config.command, config.args);
  return { command, args, env: { ...config.env, ...callerEnv }, ...(config.cwd !== undefined && { cwd: config.cwd }) };
}

function stdioTransport(name: string, spec: Omit<StdioSpawn, 'stderr'>, logger: Logger): Transport {
  // stderr is the server's log, never protocol: it goes to ours, line by line, under its name.
  const transport = new LeanStdioTransport({ ...spec, stderr: 'pipe' });
  const stderr = transport.stderr;
  // The supervisor's logger already names the server; binding it twice would write "server" twice.
  if (stderr) pipeLinesToLog(stderr, logger.child({ ...(logger.bindings().server === undefined && { server: name }), stream: 'stderr' }));
  return transport;
}

/**
 * A server the probe placed (a resumed session is a 2025 one) gets our lean transport
 * (http-transport.ts), in its era's mode; one the probe could not place, the SDK's, which
 * negotiates as it always did. When that negotiation finds a 2026 server, the connection moves to
 * the lean transport before its first request: the SDK's combines each 2026 request's signal with
 * one of its own that lives as long as the connection, and Node 20 keeps every such combination
 * until that one is gone (nodejs/node#55351): memory kept per call
 * (docs/decisions/0004-http-upstream-transport-on-undici.md).
 */
async function connectStreamable(
  options: OpenConnectionOptions,
  config: HttpUpstreamConfig,
  callerHeaders: CallerHeaders,
  challenges: ConnectionChallenges,
): Promise<UpstreamConnection> {
  const lean = ({ sessionId, modern = false }: { sessionId?: string; modern?: boolean }) => () =>
    new LeanHttpTransport({
      modern,
      url: new URL(config.url),
      headers: config.headers,
      ...(callerHeaders && { callerHeaders }),
      onRefused: (status, wwwAuthenticate) => challenges.saw(status, wwwAuthenticate),
      ...(sessionId !== undefined && { sessionId }),
      endSessionOnClose: options.keepsUpstreamSession !== true,
    });
  if (options.resumeSessionId !== undefined) return connectWith(options, 'streamable-http', lean({ sessionId: options.resumeSessionId }), undefined, challenges);
  let prior: PriorDiscovery | undefined;
  try {
    const headers = callerHeaders ? { ...config.headers, ...callerHeaders() } : config.headers;
    prior = await probeHttpEra({ url: new URL(config.url), headers }, GATEWAY_CLIENT_CAPABILITIES, connectTimeoutOf(config));
  } catch (error) {
    throw new UpstreamUnavailableError(options.name, describeConnectError(error, config.url));
  }
  if (prior !== undefined) return connectWith(options, 'streamable-http', lean({ modern: prior.kind === 'modern' }), prior, challenges);
  return connectWith(options, 'streamable-http', () => streamableTransport(config, callerHeaders, challenges), prior, challenges, lean({ modern: true }));
}

/** A caller's own headers (per-user credentials), read for every request; absent on a shared connection. */
type CallerHeaders = (() => Readonly<Record<string, string>>) | undefined;

/** fetch with the caller's headers laid over what the SDK sends (they must win over a configured Authorization). */
function fetchWithCallerHeaders(callerHeaders: CallerHeaders, challenges: ConnectionChallenges): typeof fetch {
  if (!callerHeaders) return challenges.watching(fetch);
  return challenges.watching((url, init) => {
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(callerHeaders())) headers.set(name, value);
    return fetch(url, { ...init, headers });
  });
}

/**
 * The SDK's transport, for a server the era probe could not place: its own negotiation then says
 * what the server is, and its errors what went wrong, as they always did.
 */
function streamableTransport(config: HttpUpstreamConfig, callerHeaders: CallerHeaders, challenges: ConnectionChallenges): Transport {
  return new StreamableHTTPClientTransport(new URL(config.url), {
    requestInit: { headers: { ...config.headers } },
    fetch: fetchWithCallerHeaders(callerHeaders, challenges),
  });
}

function sseTransport(config: HttpUpstreamConfig, callerHeaders: CallerHeaders, challenges: ConnectionChallenges): Transport {
  const withCaller = fetchWithCallerHeaders(callerHeaders, challenges);
  return new SSEClientTransport(new URL(config.url), {
    requestInit: { headers: { ...config.headers } },
    fetch: withCaller,
    eventSourceInit: { fetch: (url, init) => withCaller(url, { ...init, headers: { ...init?.headers, ...config.headers } }) },
  });
}

function connectTimeoutOf(config: UpstreamConfig): number {
  return Math.max(config.timeoutMs, MIN_CONNECT_TIMEOUT_MS);
}

async function connectWith(
  options: OpenConnectionOptions,
  kind: UpstreamInfo['transport'],
  makeTransport: () => Transport,
  /** The era, when it was asked beforehand (a stdio server's sibling probe): no probe on this connection. */
  prior?: PriorDiscovery,
  /** An HTTP connection's 401/403 challenges, which explain a failure better than the transport's status. */
  challenges?: ConnectionChallenges,
  /** Where the connection moves once the SDK's negotiation on `makeTransport`'s transport finds a 2026 server. */
  modernTransport?: () => Transport,
): Promise<UpstreamConnection> {
  const { name, config, handlers } = options;
  const client = new Client(GATEWAY_IMPLEMENTATION, {
    capabilities: GATEWAY_CLIENT_CAPABILITIES,
    versionNegotiation: negotiationFor(kind, options.resumeSessionId !== undefined),
    // The gateway decides how to ask its own client for input (design.md, "Eras"): an
    // input_required result comes back as it is, never fulfilled by the SDK's handlers.
    inputRequired: { autoFulfill: false },
  });
  for (const method of RELAYED_SERVER_REQUESTS) {
    client.setRequestHandler(method, passThroughSchemas, async (params, context) =>
      handlers.onServerRequest({ method, ...(params !== undefined && { params: params as JsonObject }), signal: context.mcpReq.signal }),
    );
  }
  let closing = false;
  // Only a connection handed to the supervisor is news for it. While opening, a loss fails the
  // opening instead, and a notification is dropped: the gateway's catalogue fetches the lists once
  // the upstream is ready, which covers any change that came before.
  let connected = false;
  let lostWhileOpening: string | undefined;
  const lost = (reason: string): void => {
    if (closing) return;
    if (connected) handlers.onClosed(reason);
    else lostWhileOpening ??= reason;
  };
  const deliver = (notification: UpstreamNotification): void => {
    if (connected) handlers.onNotification(notification);
  };
  client.fallbackNotificationHandler = async (notification) =>
    deliver(withoutSubscriptionId({ method: notification.method, ...(notification.params && { params: notification.params }) }));
  client.onclose = () => lost('the connection closed');
  // Transport errors (a failed SSE reconnect, a broken pipe) are reported by onclose or by the
  // request that hit them; nothing to do here but keep the SDK from logging to the console.
  client.onerror = () => {};

  const connectTimeoutMs = connectTimeoutOf(config);
  const connectMark = challenges?.mark ?? 0;
  const transport = makeTransport();
  let info: UpstreamInfo;
  let path: EraPath;
  try {
    await client.connect(transport, { timeout: connectTimeoutMs, ...(prior && { prior }) });
    const discover = client.getProtocolEra() === 'modern' ? client.getDiscoverResult() : undefined;
    if (modernTransport && discover !== undefined) {
      // A 2026 connection holds nothing on the server: closing this one loses nothing, and what the
      // negotiation learned is the next one's prior, so it asks no second time.
      closing = true;
      await client.close().catch(() => {});
      return await connectWith(options, kind, modernTransport, { kind: 'modern', discover }, challenges);
    }
    info = negotiatedInfo(client, kind, transport.sessionId);
    path = await openEraPath({
      server: name,
      client,
      transport,
      clientInfo: GATEWAY_IMPLEMENTATION,
      clientCapabilities: GATEWAY_CLIENT_CAPABILITIES,
      capabilities: info.capabilities,
      carried: options.carried ?? { subscriptions: [] },
      timeoutMs: connectTimeoutMs,
      logger: options.logger,
      announce: deliver,
    });
    if (lostWhileOpening !== undefined) throw new UpstreamUnavailableError(name, lostWhileOpening);
    // Nothing awaits between here and the supervisor taking the connection, so no event comes first.
    connected = true;
  } catch (error) {
    closing = true;
    await client.close().catch(() => {});
    const refused = challenges?.since(connectMark);
    if (refused) throw refused;
    throw error instanceof UpstreamUnavailableError ? error : new UpstreamUnavailableError(name, describeConnectError(error, isStdioUpstream(config) ? undefined : config.url));
  }

  return {
    info,
    async request(method, params, requestOptions) {
      const mark = challenges?.mark ?? 0;
      try {
        return await path.request(method, params, requestOptions);
      } catch (error) {
        throw challenges?.since(mark) ?? translateRequestError(name, method, requestOptions.timeoutMs, error, requestOptions.signal);
      }
    },
    async ping(timeoutMs) {
      try {
        await path.ping(timeoutMs);
      } catch (error) {
        throw translateRequestError(name, 'ping', timeoutMs, error, undefined);
      }
    },
    async notify(method, params) {
      try {
        await client.notification({ method, ...(params && { params }) });
      } catch (error) {
        if (isNotInEra(error)) return;
        throw new UpstreamUnavailableError(name, errorMessage(error));
      }
    },
    async close() {
      closing = true;
      await path.close().catch(() => {});
      await client.close();
    },
  };
}
