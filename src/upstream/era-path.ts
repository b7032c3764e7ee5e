// The request path of a live connection, by era. A legacy (2025) upstream gets the gateway's
// requests as they are, and what earlier connections were asked (carried-state.ts) is asked
// again. A modern (2026-07-28) one gets the translations of modern-requests.ts and the listens of
// modern-listens.ts, which start from the carried subscriptions and log level.
import type { Client, Transport } from '@modelcontextprotocol/client';
import type { Logger } from '../observe/logger.js';
import type { CarriedState } from './carried-state.js';
import type { Cancellation } from '../protocol/cancellation.js';
import { UpstreamCancelledError, UpstreamRpcError } from './errors.js';
import { LeanRequests } from './lean-requests.js';
import { ModernListens } from './modern-listens.js';
import { ModernRequests, type SendRequest } from './modern-requests.js';
import { passThroughResult } from './pass-through.js';
import { errorMessage } from './request-errors.js';
import { traceHeadersOf } from './trace-headers.js';
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
  /** The client's transport, which a 2025-era path sends its requests on directly (lean-requests.ts). */
  readonly transport: Transport;
  readonly capabilities: Readonly<Record<string, unknown>>;
  readonly carried: CarriedState;
  /** For the requests made while opening (asking again, listening). */
  readonly timeoutMs: number;
  readonly logger: Logger;
  /** Notifications the path makes up itself (what a reopened listen may have missed). */
  announce(notification: UpstreamNotification): void;
}

export async function openEraPath(options: EraPathOptions): Promise<EraPath> {
  if (options.client.getProtocolEra() === 'modern') return openModern(options, sendThrough(options.client, options.server));
  const lean = new LeanRequests(options.server, options.transport);
  return openLegacy(options, (method, params, requestOptions) => lean.request(method, params, requestOptions), lean);
}

/**
 * One request, its result as the upstream sent it: on a modern connection an input_required
 * result too (allowInputRequired; a legacy connection has no such result and ignores it).
 */
function sendThrough(client: Client, server: string): SendRequest {
  return async (method, params, { signal, cancel, timeoutMs, onProgress, headers: requestHeaders }) => {
    // The SDK wants an AbortSignal; a caller that cancels through a Cancellation gets one made here.
    const linked = !signal && cancel ? linkedSignal(cancel) : undefined;
    const aborts = signal ?? linked?.signal;
    // The trace context in `_meta` goes out as headers too (trace-headers.ts); stdio ignores them.
    const trace = traceHeadersOf(params);
    const headers = trace ? { ...requestHeaders, ...trace } : requestHeaders;
    try {
      return (await client.request({ method, ...(params && { params }) }, passThroughResult, {
        timeout: timeoutMs,
        allowInputRequired: true,
        ...(aborts && { signal: aborts }),
        ...(onProgress && { onprogress: onProgress }),
        ...(headers && { headers }),
      })) as JsonObject;
    } catch (error) {
      throw aborts?.aborted ? new UpstreamCancelledError(server, method) : error;
    } finally {
      linked?.stop();
    }
  };
}

function linkedSignal(cancel: Cancellation): { signal: AbortSignal; stop: () => void } {
  const controller = new AbortController();
  const stop = cancel.onCancel(() => controller.abort('cancelled by the client'));
  return { signal: controller.signal, stop };
}

async function openLegacy(options: EraPathOptions, send: SendRequest, lean: LeanRequests): Promise<EraPath> {
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

async function openModern(options: EraPathOptions, send: SendRequest): Promise<EraPath> {
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
  const requests = new ModernRequests(options.server, send, listens, options.carried.logLevel);
  return {
    request: (method, params, requestOptions) => requests.request(method, params, requestOptions),
    ping: (timeoutMs) => requests.ping(timeoutMs),
    close: () => listens.close(),
  };
}
