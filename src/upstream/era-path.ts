// The request path of a live connection, by era. A legacy (2025) upstream gets the gateway's
// requests as they are, and what earlier connections were asked (carried-state.ts) is asked
// again. A modern (2026-07-28) one gets the translations of modern-requests.ts and the listens of
// modern-listens.ts, which start from the carried subscriptions and log level. Either era's
// requests go out on the lean path (lean-requests.ts), in that era's dialect.
import type { Client, Transport } from '@modelcontextprotocol/client';
import type { Logger } from '../observe/logger.js';
import type { CarriedState } from './carried-state.js';
import { UpstreamRpcError } from './errors.js';
import { LeanRequests } from './lean-requests.js';
import { modernDialect } from './modern-dialect.js';
import { ModernListens } from './modern-listens.js';
import { ModernRequests, type SendRequest } from './modern-requests.js';
import { errorMessage } from './request-errors.js';
import type { JsonObject, UpstreamNotification, UpstreamRequestOptions } from './types.js';

export interface EraPath {
  request(method: string, params: JsonObject | undefined, options: UpstreamRequestOptions & { timeoutMs: number }): Promise<JsonObject>;
  ping(timeoutMs: number): Promise<unknown>;
  close(): Promise<void>;
}

export interface EraPathOptions {
  readonly server: string;
  /** Connected: its era is known. */
  readonly client: Client;
  /** The client's transport, which the gateway's requests go out on directly (lean-requests.ts). */
  readonly transport: Transport;
  /** How the client introduced itself, and what it said it can do: a modern request's envelope says so again. */
  readonly clientInfo: Readonly<Record<string, unknown>>;
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  readonly capabilities: Readonly<Record<string, unknown>>;
  readonly carried: CarriedState;
  /** For the requests made while opening (asking again, listening). */
  readonly timeoutMs: number;
  readonly logger: Logger;
  /** Notifications the path makes up itself (what a reopened listen may have missed). */
  announce(notification: UpstreamNotification): void;
}

export async function openEraPath(options: EraPathOptions): Promise<EraPath> {
  const { client, server, transport } = options;
  const version = client.getNegotiatedProtocolVersion();
  if (client.getProtocolEra() === 'modern' && version !== undefined) {
    const dialect = modernDialect({
      protocolVersion: version,
      clientInfo: options.clientInfo,
      clientCapabilities: options.clientCapabilities,
    });
    return openModern(options, new LeanRequests(server, transport, dialect));
  }
  return openLegacy(options, new LeanRequests(server, transport));
}

function sendOn(lean: LeanRequests): SendRequest {
  return (method, params, requestOptions) => lean.request(method, params, requestOptions);
}

async function openLegacy(options: EraPathOptions, lean: LeanRequests): Promise<EraPath> {
  const send = sendOn(lean);
  const { subscriptions, logLevel } = options.carried;
  const again = (method: string, params: JsonObject) =>
    send(method, params, { timeoutMs: options.timeoutMs }).catch((error: unknown) => {
      options.logger.warn({ method, params, err: errorMessage(error) }, 'could not repeat a request of the previous connection');
    });
  await Promise.all([
    ...subscriptions.map((uri) => again('resources/subscribe', { uri })),
    ...(logLevel !== undefined ? [again('logging/setLevel', { level: logLevel })] : []),
  ]);
  return {
    request: send,
    ping: (timeoutMs) => send('ping', undefined, { timeoutMs }),
    close: async () => lean.close('the connection was closed'),
  };
}

async function openModern(options: EraPathOptions, lean: LeanRequests): Promise<EraPath> {
  const listens = new ModernListens({
    server: options.server,
    client: options.client,
    capabilities: options.capabilities,
    ackTimeoutMs: options.timeoutMs,
    logger: options.logger,
    announce: options.announce,
  });
  try {
    await listens.start(options.carried.subscriptions);
  } catch (error) {
    // An upstream that refuses to listen still serves its tools; only its news is lost (and a
    // transport failure fails the connection, by the rethrow).
    if (!(error instanceof UpstreamRpcError)) throw error;
    options.logger.warn({ err: error.message, code: error.code }, 'the upstream refused subscriptions/listen: its list changes and resource updates will not be seen');
  }
  const requests = new ModernRequests(options.server, sendOn(lean), listens, options.carried.logLevel);
  return {
    request: (method, params, requestOptions) => requests.request(method, params, requestOptions),
    ping: (timeoutMs) => requests.ping(timeoutMs),
    close: async () => {
      lean.close('the connection was closed');
      await listens.close();
    },
  };
}
