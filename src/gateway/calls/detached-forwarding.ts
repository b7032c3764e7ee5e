// A gateway task's upstream call: forwarded the way a plain call is (server limits, per-user
// credentials, eras), but detached from the client request that started it; and where its
// progress goes.
import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../../protocol/json.js';
import type { SessionRecord } from '../../session/store.js';
import type { Caller } from '../caller.js';
import { toRpcError } from '../errors.js';
import type { RequestTrace } from '../handlers/handler-context.js';
import type { GatewayObserver } from '../observer.js';
import type { UpstreamForwarding } from './forwarding.js';
import type { InFlightRegistry } from './in-flight.js';
import type { SessionOutbox } from '../sessions/session-outbox.js';
import { progressTokenOf } from './progress.js';
import type { ProgressUpdate } from '../../upstream/types.js';

export interface DetachedForwardingDeps {
  readonly inFlight: InFlightRegistry;
  readonly forwarding: UpstreamForwarding;
  readonly observer: Required<GatewayObserver>;
}

/**
 * A request that outlives the client request that started it (a gateway task). It is in flight
 * under a caller key of its own: the upstream's messages meanwhile are not taken for another
 * caller's (in-flight.ts attributes a message only to the one caller waiting), and neither the
 * request's end nor the session's cancels it; `signal` does. Its outcome is a request event (an
 * audit line, the metrics) of its own when it ends, as a plain call's is: the client request that
 * started it was answered (and audited) long before.
 */
export async function forwardDetached(
  { inFlight: registry, forwarding, observer }: DetachedForwardingDeps,
  request: {
    readonly caller: Caller;
    readonly isolation: SessionRecord | undefined;
    readonly trace: RequestTrace;
    /** The upstream's progress, for the session that made the task (gateway.ts). */
    readonly onProgress: ((update: ProgressUpdate) => void) | undefined;
  },
  server: string,
  method: string,
  params: JsonObject,
  calledAs: string | undefined,
  signal: AbortSignal,
): Promise<JsonObject> {
  const started = performance.now();
  const owner = request.caller;
  const caller: Caller = { ...owner, key: `detached:${randomUUID()}` };
  const trace: RequestTrace = { server, ...(request.trace.name !== undefined && { name: request.trace.name }) };
  const inFlight = registry.start(caller, owner.requestId ?? 0, undefined);
  const stop = () => inFlight.cancel(typeof signal.reason === 'string' ? signal.reason : 'cancelled');
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  let errorCode: number | undefined;
  try {
    return await forwarding.forward({ caller, isolation: request.isolation, inFlight, onProgress: request.onProgress, retry: undefined, trace, span: undefined }, server, method, params, calledAs);
  } catch (error) {
    errorCode = toRpcError(error).code;
    throw error;
  } finally {
    signal.removeEventListener('abort', stop);
    registry.finish(inFlight);
    observer.onRequest({
      method,
      era: owner.era,
      server,
      name: trace.name,
      outcome: errorCode === undefined ? 'ok' : trace.denied ? 'denied' : 'error',
      reason: trace.reason,
      durationMs: performance.now() - started,
      sessionId: owner.session?.id ?? '',
      requestId: owner.requestId,
      principal: owner.principal,
      errorCode,
      endpoint: owner.endpoint,
      credentials: trace.credentials,
      traceId: undefined,
      spanId: undefined,
    });
  }
}

/**
 * A gateway task's progress goes to the session that made it, under the client's own token, which
 * stays valid for the task's life (the tasks spec): queued for its GET stream on any replica. A
 * 2026 client has no stream to take it on.
 */
export function taskProgress(outbox: SessionOutbox, caller: Caller, params: JsonObject): ((update: ProgressUpdate) => void) | undefined {
  const session = caller.session;
  const progressToken = progressTokenOf(params);
  if (session === undefined || progressToken === undefined) return undefined;
  return (update) => {
    const message = { jsonrpc: '2.0' as const, method: 'notifications/progress', params: { progressToken, ...update } };
    outbox.toSessions([session.id], message).catch(() => {
      // Progress is advice: a store that does not take it loses an update, not the task.
    });
  };
}
