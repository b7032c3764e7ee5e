// The audit trail (contract, "Audit"): one JSON line with "audit": true per tools/call, prompts/get
// and resources/read, and per request refused for want of a token or a permission. Who (sub),
// which session (shortened, as in every other log line), what (method, server, name), and how it
// ended (ok | error | denied | unauthenticated), with how long it took. Never arguments, results or
// tokens: the gateway's own log must not become the place where secrets leak. Each kind of line and
// its fields are described in audit-events.ts, which the lines here are typed against.
import { DEFAULT_ENDPOINT } from '../config/endpoints.js';
import type { GatewayObserver, RequestEvent } from '../gateway/observer.js';
import type { RefusalEvent } from '../http/middleware/refusal.js';
import type { WithheldToolEvent } from '../pinning/enforcer.js';
import type { ConnectionEvent } from '../connections/upstream-connector.js';
import type { AuditLine } from './audit-events.js';
import type { SignInAuditEvent } from '../signin/audit-events.js';
import { preformattedLines, type Logger } from './logger.js';
import { QuotedStrings } from './quoted-strings.js';
import { jsonNumber, jsonString } from '../protocol/json-scalars.js';

/** The methods that reach one item of one upstream, each worth an audit line. */
const AUDITED_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);

/**
 * `endpoints`: whether endpoints are configured (config `endpoints`); then each line names its
 * endpoint, "default" for server.path. Without them every line is the default endpoint's, and the
 * field is left out.
 */
export function auditObserver(logger: Logger, { endpoints = false }: { endpoints?: boolean } = {}): GatewayObserver {
  const lines = preformattedLines(logger);
  const quoted = new QuotedStrings();
  return {
    onRequest(event: RequestEvent) {
      // Other methods are audited when policy refused them (a subscribe or completion of a hidden item).
      if (!AUDITED_METHODS.has(event.method) && event.outcome !== 'denied') return;
      // Written as JSON here, field by field in the line's order, rather than given to pino as an
      // object: this runs for every tool call (logger.ts, preformattedLines). None of these fields
      // can hold a secret; the session is shortened as everywhere else. The values that repeat from
      // call to call are quoted once (quoted-strings.ts); the request and trace ids never repeat.
      let line = '"audit":true';
      if (event.requestId !== undefined) line += `,"requestId":${jsonString(event.requestId)}`;
      if (event.traceId !== undefined) line += `,"traceId":${jsonString(event.traceId)},"spanId":${jsonString(event.spanId ?? '')}`;
      if (event.principal) line += `,"sub":${quoted.of(event.principal.sub)}`;
      if (event.sessionId !== '') line += `,"session":${quoted.of(shortSessionId(event.sessionId))}`;
      if (event.era === 'modern') line += ',"era":"2026"';
      if (endpoints) line += `,"endpoint":${quoted.of(event.endpoint ?? DEFAULT_ENDPOINT)}`;
      line += `,"method":${quoted.of(event.method)}`;
      if (event.server !== undefined) line += `,"server":${quoted.of(event.server)}`;
      if (event.name !== undefined) line += `,"name":${quoted.of(event.name)}`;
      // Not "credentials", a key the logger censors wherever pino writes it (redact.ts).
      if (event.credentials !== undefined) line += `,"credentialMode":${quoted.of(event.credentials)}`;
      line += `,"outcome":${quoted.of(event.outcome)}`;
      if (event.reason !== undefined) line += `,"reason":${quoted.of(event.reason)}`;
      if (event.errorCode !== undefined) line += `,"errorCode":${jsonNumber(event.errorCode)}`;
      line += `,"durationMs":${tenthsText(event.durationMs)}`;
      lines.info(line, 'audit');
    },
  };
}

/**
 * JSON's text of `ms` rounded to a tenth (Math.round(ms * 10) / 10), made from integers: V8 is
 * slow to find a fraction's shortest text, a small integer's is at hand. The text of n / 10 for
 * an integer n is its digits with a point before the last, and only beyond 2^31 tenths (about two
 * and a half days) does the line fall back to the number's own text.
 */
function tenthsText(ms: number): string {
  const tenths = Math.round(ms * 10);
  if (!(tenths >= 0 && tenths <= 0x7fffffff)) return jsonNumber(tenths / 10);
  const digit = tenths % 10;
  const whole = (tenths - digit) / 10;
  return digit === 0 ? `${whole}` : `${whole}.${digit}`;
}

/** For the HTTP-level refusals (Origin, token, scope, rate limit) of the access-control middleware. */
/** `endpointOfPath`, when endpoints are configured: the endpoint a refused request was for. */
export function auditRefusals(logger: Pick<Logger, 'info'>, endpointOfPath?: (path: string) => string): (event: RefusalEvent) => void {
  return (event) => {
    logger.info(
      {
        audit: true,
        ...(event.sub !== undefined && { sub: event.sub }),
        ...(event.sessionId !== undefined && { session: shortSessionId(event.sessionId) }),
        ...(endpointOfPath && { endpoint: endpointOfPath(event.path) }),
        httpMethod: event.httpMethod,
        outcome: event.outcome,
        reason: event.reason,
        ...(event.detail !== undefined && { detail: event.detail }),
        status: event.status,
        client: event.client,
        ...(event.requestId !== undefined && { requestId: event.requestId }),
      } satisfies AuditLine<'httpRefusal'>,
      'audit',
    );
  };
}

/**
 * A tool the gateway stopped listing because its live definition is not the pinned one (or has no
 * pin): one line when it happens, once per tool and live definition. No request caused it, so it
 * has no method, sub or session; `event` names what happened. Each call of the tool afterwards is
 * audited as any call, `denied` with the same reason.
 */
export function auditWithheldTools(logger: Pick<Logger, 'info'>): (event: WithheldToolEvent) => void {
  return (event) => {
    logger.info(
      {
        audit: true,
        event: 'tool-withheld',
        server: event.server,
        name: event.name,
        outcome: 'denied',
        reason: event.reason,
        ...(event.pinned !== undefined && { pinned: event.pinned }),
        live: event.live,
      } satisfies AuditLine<'toolWithheld'>,
      'audit',
    );
  };
}

/** An operator's action on the admin listener (http/admin/): who asked for what, and how it went. */
export interface AdminActionEvent {
  readonly action: 'restart' | 'reload' | 'drain' | 'resume' | 'sign-in' | 'sign-out';
  /** What it acted on: the server of a restart. */
  readonly target?: string;
  /** `ok`; `refused` (nothing was done: an unknown server, an invalid config); `error` (it was tried and failed). */
  readonly outcome: 'ok' | 'refused' | 'error';
  /** Why, when not ok, in the operator's words (never a secret: config problems name key paths). */
  readonly reason?: string;
  /** The token's subject; absent without auth. */
  readonly sub?: string;
  readonly client: string;
  readonly requestId?: string;
  readonly durationMs: number;
}

/** A request to the admin listener refused for want of a token or of the admin scope, or from a foreign page. */
export type AdminRefusalEvent = Omit<RefusalEvent, 'sessionId'>;

/** Lines with `"event": "admin"`: one per action (restart, reload, drain) and per refused request. */
/** Sign-in mode's steps (signin/audit-events.ts). */
export function auditSignIn(logger: Pick<Logger, 'info'>): (event: SignInAuditEvent) => void {
  return (event) => {
    logger.info(
      {
        audit: true,
        event: 'sign-in',
        step: event.event,
        ...(event.sub !== undefined && { sub: event.sub }),
        ...(event.clientId !== undefined && { clientId: event.clientId }),
        ...(event.scopes !== undefined && { scopes: event.scopes }),
        ...(event.reason !== undefined && { reason: event.reason }),
        ...(event.client !== undefined && { client: event.client }),
      } satisfies AuditLine<'signIn'>,
      'audit',
    );
  };
}

/**
 * A person's connection changed (connections/upstream-connector.ts): connected, a refresh failed,
 * the provider refused the refresh token, disconnected. A refresh that worked is only counted.
 */
export function auditConnections(logger: Pick<Logger, 'info'>): (event: ConnectionEvent) => void {
  return (event) => {
    if (event.event === 'refreshed') return;
    logger.info(
      {
        audit: true,
        event: 'connection',
        step: event.event,
        server: event.server,
        sub: event.sub,
        ...(event.reason !== undefined && { reason: event.reason }),
        ...(event.revoked !== undefined && { revoked: event.revoked }),
      } satisfies AuditLine<'connection'>,
      'audit',
    );
  };
}

export function auditAdmin(logger: Pick<Logger, 'info'>): { action(event: AdminActionEvent): void; refusal(event: AdminRefusalEvent): void } {
  return {
    action(event) {
      logger.info(
        {
          audit: true,
          event: 'admin',
          ...(event.sub !== undefined && { sub: event.sub }),
          client: event.client,
          action: event.action,
          ...(event.target !== undefined && { target: event.target }),
          outcome: event.outcome,
          ...(event.reason !== undefined && { reason: event.reason }),
          durationMs: Math.round(event.durationMs * 10) / 10,
          ...(event.requestId !== undefined && { requestId: event.requestId }),
        } satisfies AuditLine<'adminAction'>,
        'audit',
      );
    },
    refusal(event) {
      logger.info(
        {
          audit: true,
          event: 'admin',
          ...(event.sub !== undefined && { sub: event.sub }),
          client: event.client,
          httpMethod: event.httpMethod,
          path: event.path,
          outcome: event.outcome,
          reason: event.reason,
          ...(event.detail !== undefined && { detail: event.detail }),
          status: event.status,
          ...(event.requestId !== undefined && { requestId: event.requestId }),
        } satisfies AuditLine<'adminRefusal'>,
        'audit',
      );
    },
  };
}

/** The same eight characters gateway.ts logs (shortId), never the whole id, which is a credential. */
function shortSessionId(sessionId: string): string {
  return sessionId.slice(0, 8);
}
