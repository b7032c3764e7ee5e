// What the gateway tells the rest of the process about the requests it serves: metrics and the
// audit trail listen here, so the request path itself stays free of both.
import type { Principal } from '../auth/principal.js';
import type { CredentialUse } from './isolation/caller-credentials.js';
import type { Era } from './caller.js';

export type RequestOutcome = 'ok' | 'error' | 'denied';

export interface RequestEvent {
  readonly method: string;
  /** 2025 (a session) or 2026 (stateless): bounded, for metrics. */
  readonly era?: Era;
  /** The upstream's config name, when the request went to (or was meant for) one upstream. */
  readonly server?: string;
  /** The upstream's own tool/prompt name or resource URI, for calls, gets and reads. */
  readonly name?: string;
  readonly outcome: RequestOutcome;
  /** Why a `denied` request was refused: a limit (calls/server-limits.ts) or a withheld tool (`pin-mismatch`, `unpinned`); absent for policy. */
  readonly reason?: string;
  readonly durationMs: number;
  /** The 2025 session's id; empty for a 2026 request. */
  readonly sessionId: string;
  /** The transport's id of the request (X-Request-Id). */
  readonly requestId?: string;
  readonly principal?: Principal;
  /** The JSON-RPC error code, when the outcome is not ok. */
  readonly errorCode?: number;
  /** The configured endpoint the request came in on; absent: the default one (bounded: the config's names). */
  readonly endpoint?: string;
  /** What the request presented to its upstream: the config's credentials, or the caller's own and how obtained. */
  readonly credentials?: CredentialUse;
  /** The trace and span of the request's span, when tracing is on. */
  readonly traceId?: string;
  readonly spanId?: string;
}

export interface NotificationEvent {
  readonly method: string;
  /** How many sessions it went to. */
  readonly sessions: number;
}

/**
 * What became of a list change the store did not take at the moment of the change
 * (sessions/list-changed.ts): kept (`deferred`), then announced here, or by the replica that
 * claimed it (`other-replica`); `failed` is a change never announced (an error other than the
 * store's absence), deferred or not.
 */
export const LIST_CHANGE_DEFERRAL_OUTCOMES = ['deferred', 'announced', 'other-replica', 'failed'] as const;
export type ListChangeDeferralOutcome = (typeof LIST_CHANGE_DEFERRAL_OUTCOMES)[number];

export interface ListChangeDeferralEvent {
  readonly outcome: ListChangeDeferralOutcome;
}

export interface GatewayObserver {
  onRequest?(event: RequestEvent): void;
  onNotificationForwarded?(event: NotificationEvent): void;
  onListChangeDeferral?(event: ListChangeDeferralEvent): void;
}

/**
 * Calls every observer; one that throws does not stop the others or the request. The try is
 * written out in each loop rather than around a closure: onRequest runs for every request.
 */
export function combineObservers(observers: readonly GatewayObserver[]): Required<GatewayObserver> {
  return {
    onRequest(event) {
      for (const observer of observers) {
        try {
          observer.onRequest?.(event);
        } catch {
          // An observer's failure is its own problem; the request has been served.
        }
      }
    },
    onNotificationForwarded(event) {
      for (const observer of observers) {
        try {
          observer.onNotificationForwarded?.(event);
        } catch {
          // As above.
        }
      }
    },
    onListChangeDeferral(event) {
      for (const observer of observers) {
        try {
          observer.onListChangeDeferral?.(event);
        } catch {
          // As above.
        }
      }
    },
  };
}
