// One live connection to one upstream through the official client SDK (v2): the transport for the
// configured kind, the initialize handshake, and a request path that hands results back untouched.
import {
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Logger } from '../observe/logger.js';
import { isStdioUpstream, type HttpUpstreamConfig, type StdioUpstreamConfig, type UpstreamConfig } from '../config/schema.js';
import { guardedCommand } from './child-guard.js';
import { UpstreamCancelledError, UpstreamRpcError, UpstreamTimeoutError, UpstreamUnavailableError } from './errors.js';
import { pipeLinesToLog } from './stderr-log.js';
import type { JsonObject, UpstreamInfo, UpstreamNotification, UpstreamRequestOptions, UpstreamServerRequest } from './types.js';
import { GATEWAY_IMPLEMENTATION } from '../version.js';

/**
 * Accepts any result object as it is. The gateway relays what upstreams say; checking result
 * shapes is the client's business, and an SDK schema would drop fields newer than the SDK.
 */
const passThroughResult = {
  '~standard': {
    version: 1 as const,
    vendor: 'switchboard',
    validate: (value: unknown) =>
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? { value: value as JsonObject }
        : { issues: [{ message: 'the result is not a JSON object' }] },
  },
};

/** The server-to-client requests the gateway relays to its clients. */
export const RELAYED_SERVER_REQUESTS = ['sampling/createMessage', 'elicitation/create', 'roots/list'] as const;

/**
 * What the gateway tells upstreams it can do as their client: whatever any of its clients may
 * do, since it relays these requests to the client session they belong to (and answers with an
 * error when that client cannot).
 */
const GATEWAY_CLIENT_CAPABILITIES = {
  sampling: {},
  elicitation: { form: {}, url: {} },
  roots: { listChanged: true },
};

/** Hands the upstream's params over as they are; the client that answers checks them. */
const passThroughSchemas = {
  params: {
    '~standard': {
      version: 1 as const,
      vendor: 'switchboard',
      validate: (value: unknown) => ({ value: (value ?? undefined) as JsonObject | undefined }),
    },
  },
  result: passThroughResult,
};

/**
 * Starting a process and its initialize can take seconds on a loaded machine even when the
 * server's calls are quick, so a short per-request timeoutMs does not apply to connecting.
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
  logger: Logger;
  handlers: ConnectionHandlers;
}

export async function openConnection(options: OpenConnectionOptions): Promise<UpstreamConnection> {
  const { config } = options;
  if (isStdioUpstream(config)) return connectWith(options, 'stdio', () => stdioTransport(options.name, config, options.logger));
  if (config.transport === 'sse') return connectWith(options, 'sse', () => sseTransport(config));
  if (config.transport === 'streamable-http' || options.resumeSessionId !== undefined) {
    return connectWith(options, 'streamable-http', () => streamableTransport(config, options.resumeSessionId));
  }
  // auto: Streamable HTTP first; a server that predates it gets the legacy HTTP+SSE transport.
  try {
    return await connectWith(options, 'streamable-http', () => streamableTransport(config));
  } catch (streamableError) {
    try {
      const connection = await connectWith(options, 'sse', () => sseTransport(config));
      options.logger.info({ server: options.name }, 'upstream speaks the legacy HTTP+SSE transport');
      return connection;
    } catch {
      throw streamableError;
    }
  }
}

function stdioTransport(name: string, config: StdioUpstreamConfig, logger: Logger): Transport {
  // Through `setpriv --pdeathsig SIGKILL` where there is one, so the child dies with the gateway
  // even when the gateway is killed (child-guard.ts). The SDK's default environment keeps PATH.
  const { command, args } = guardedCommand(config.command, config.args);
  const transport = new StdioClientTransport({
    command,
    args,
    env: { ...config.env },
    ...(config.cwd !== undefined && { cwd: config.cwd }),
    // stderr is the server's log, never protocol: it goes to ours, line by line, under its name.
    stderr: 'pipe',
  });
  const stderr = transport.stderr;
  // The supervisor's logger already names the server; binding it twice would write "server" twice.
  if (stderr) pipeLinesToLog(stderr, logger.child({ ...(logger.bindings().server === undefined && { server: name }), stream: 'stderr' }));
  return transport;
}

function streamableTransport(config: HttpUpstreamConfig, sessionId?: string): Transport {
  return new StreamableHTTPClientTransport(new URL(config.url), {
    requestInit: { headers: { ...config.headers } },
    fetch: fetchWithOwnSignal,
    ...(sessionId !== undefined && { sessionId }),
  });
}

/**
 * Against a 2025-era server the client hands the transport's one AbortSignal to every fetch, and
 * undici keeps an abort listener on it per request until the request is garbage collected: under
 * load that is thousands of listeners, walked on every fetch (and a MaxListeners warning on Node
 * 20). A dependent signal per request still aborts with the transport's, without the pile-up.
 */
const fetchWithOwnSignal: typeof fetch = (url, init) =>
  fetch(url, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init);

function sseTransport(config: HttpUpstreamConfig): Transport {
  return new SSEClientTransport(new URL(config.url), {
    requestInit: { headers: { ...config.headers } },
    eventSourceInit: { fetch: (url, init) => fetch(url, { ...init, headers: { ...init?.headers, ...config.headers } }) },
  });
}

async function connectWith(
  { name, config, handlers }: OpenConnectionOptions,
  kind: UpstreamInfo['transport'],
  makeTransport: () => Transport,
): Promise<UpstreamConnection> {
  const client = new Client(GATEWAY_IMPLEMENTATION, { capabilities: GATEWAY_CLIENT_CAPABILITIES });
  for (const method of RELAYED_SERVER_REQUESTS) {
    client.setRequestHandler(method, passThroughSchemas, async (params, context) =>
      handlers.onServerRequest({ method, ...(params !== undefined && { params: params as JsonObject }), signal: context.mcpReq.signal }),
    );
  }
  let closing = false;
  // Before connect() resolves, a dying process is reported by connect() rejecting; only a live
  // connection that ends is news for the supervisor.
  let connected = false;
  client.fallbackNotificationHandler = async (notification) => {
    handlers.onNotification({ method: notification.method, ...(notification.params && { params: notification.params }) });
  };
  client.onclose = () => {
    if (connected && !closing) handlers.onClosed('the connection closed');
  };
  // Transport errors (a failed SSE reconnect, a broken pipe) are reported by onclose or by the
  // request that hit them; nothing to do here but keep the SDK from logging to the console.
  client.onerror = () => {};

  const transport = makeTransport();
  try {
    await client.connect(transport, { timeout: Math.max(config.timeoutMs, MIN_CONNECT_TIMEOUT_MS) });
  } catch (error) {
    closing = true;
    await client.close().catch(() => {});
    throw new UpstreamUnavailableError(name, describeConnectError(error));
  }

  connected = true;
  const info: UpstreamInfo = {
    protocolVersion: client.getNegotiatedProtocolVersion(),
    serverInfo: client.getServerVersion(),
    capabilities: client.getServerCapabilities() ?? {},
    instructions: client.getInstructions(),
    ...(transport.sessionId !== undefined && { sessionId: transport.sessionId }),
    transport: kind,
  };

  return {
    info,
    async request(method, params, { signal, timeoutMs, onProgress }) {
      try {
        return (await client.request({ method, ...(params && { params }) }, passThroughResult, {
          timeout: timeoutMs,
          ...(signal && { signal }),
          ...(onProgress && { onprogress: onProgress }),
        })) as JsonObject;
      } catch (error) {
        throw translateRequestError(name, method, timeoutMs, error, signal);
      }
    },
    async notify(method, params) {
      try {
        await client.notification({ method, ...(params && { params }) });
      } catch (error) {
        throw new UpstreamUnavailableError(name, errorMessage(error));
      }
    },
    async close() {
      closing = true;
      await client.close();
    },
  };
}

function translateRequestError(
  server: string,
  method: string,
  timeoutMs: number,
  error: unknown,
  signal: AbortSignal | undefined,
): Error {
  if (signal?.aborted) return new UpstreamCancelledError(server, method);
  if (error instanceof ProtocolError) return new UpstreamRpcError(server, error.code, stripSdkPrefix(error.message), error.data);
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout) return new UpstreamTimeoutError(server, method, timeoutMs);
    return new UpstreamUnavailableError(server, error.message);
  }
  return new UpstreamUnavailableError(server, errorMessage(error));
}

/** The SDK puts "MCP error -32602: " in front of the upstream's message; the code travels separately. */
function stripSdkPrefix(message: string): string {
  return message.replace(/^MCP error -?\d+: /, '');
}

function describeConnectError(error: unknown): string {
  const message = errorMessage(error);
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `could not connect: ${message}${cause}`;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
