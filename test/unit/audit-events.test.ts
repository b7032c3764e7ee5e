// The table of audit lines (src/observe/audit-events.ts) is what docs/reference/audit-log.md says,
// so it must be what audit.ts writes: every field a line can carry, in the line's order, and the
// fields it calls "always" there even when every optional part of the event is absent.
import { describe, expect, it } from 'vitest';
import type { RequestEvent } from '../../src/gateway/observer.js';
import type { RefusalEvent } from '../../src/http/middleware/refusal.js';
import type { WithheldToolEvent } from '../../src/pinning/enforcer.js';
import { AUDIT_COMMON_FIELDS, AUDIT_LINES, type AuditField, type AuditLineName } from '../../src/observe/audit-events.js';
import { auditAdmin, auditConnections, auditObserver, auditRefusals, auditSignIn, auditWithheldTools, type AdminActionEvent, type AdminRefusalEvent } from '../../src/observe/audit.js';
import { createLogger } from '../../src/observe/logger.js';

/** The keys of the one line each write makes, in order, through a logger made as the gateway makes it. */
function keysOfLines(): (write: (logger: ReturnType<typeof createLogger>) => void) => string[] {
  return (write) => {
    const lines: string[] = [];
    const destination = { write: (line: string) => lines.push(line) } as unknown as NodeJS.WritableStream;
    write(createLogger({ level: 'info', destination }));
    expect(lines).toHaveLength(1);
    return Object.keys(JSON.parse(lines[0]!) as object);
  };
}

// Required<>: a field added to an event must be filled in here, and then the table must know it.
const fullRequest: Required<RequestEvent> = {
  method: 'tools/call',
  era: 'modern',
  server: 'github',
  name: 'search_repositories',
  outcome: 'denied',
  reason: 'rate-limit',
  durationMs: 1.25,
  sessionId: 'Xf3k9aQzT1mVb7LwR2cD0g',
  requestId: 'req-1',
  principal: { sub: 'alice', scopes: [], claims: {} },
  errorCode: -32000,
  endpoint: 'platform',
  credentials: 'perUser',
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
};
const fullRefusal: Required<RefusalEvent> = {
  outcome: 'denied',
  reason: 'insufficient-scope',
  detail: 'the token lacks the scope mcp',
  status: 403,
  httpMethod: 'POST',
  path: '/mcp',
  sub: 'alice',
  sessionId: 'Xf3k9aQzT1mVb7LwR2cD0g',
  client: '10.0.3.7',
  requestId: 'req-1',
};
const fullWithheld: Required<WithheldToolEvent> = { server: 'github', name: 'search', reason: 'pin-mismatch', pinned: 'sha256:a', live: 'sha256:b' };
const fullAction: Required<AdminActionEvent> = {
  action: 'restart',
  target: 'github',
  outcome: 'error',
  reason: 'the upstream did not come back',
  sub: 'alice',
  client: '127.0.0.1',
  requestId: 'req-1',
  durationMs: 812.37,
};
const { sessionId: _unused, ...fullAdminRefusal } = fullRefusal;

const writers: Record<AuditLineName, { full: (logger: ReturnType<typeof createLogger>) => void; least: (logger: ReturnType<typeof createLogger>) => void }> = {
  request: {
    full: (logger) => auditObserver(logger, { endpoints: true }).onRequest?.(fullRequest),
    least: (logger) => auditObserver(logger).onRequest?.({ method: 'tools/call', outcome: 'ok', durationMs: 1, sessionId: '' }),
  },
  httpRefusal: {
    full: (logger) => auditRefusals(logger, () => 'default')(fullRefusal),
    least: (logger) => auditRefusals(logger)({ outcome: 'unauthenticated', reason: 'missing-token', status: 401, httpMethod: 'POST', path: '/mcp', client: '10.0.3.7' }),
  },
  toolWithheld: {
    full: (logger) => auditWithheldTools(logger)(fullWithheld),
    least: (logger) => auditWithheldTools(logger)({ server: 'github', name: 'search', reason: 'unpinned', live: 'sha256:b' }),
  },
  adminAction: {
    full: (logger) => auditAdmin(logger).action(fullAction),
    least: (logger) => auditAdmin(logger).action({ action: 'drain', outcome: 'ok', client: '127.0.0.1', durationMs: 3 }),
  },
  signIn: {
    full: (logger) => auditSignIn(logger)({ event: 'token-refused', sub: 'alice', clientId: 'client-1', scopes: ['mcp'], reason: 'invalid_grant', client: '127.0.0.1' }),
    least: (logger) => auditSignIn(logger)({ event: 'client-registered' }),
  },
  connection: {
    // A real line has a reason or revoked, not both; both here check the order of all its fields.
    full: (logger) => auditConnections(logger)({ server: 'linear', sub: 'alice', event: 'disconnected', reason: 'not in a real line', revoked: true }),
    least: (logger) => auditConnections(logger)({ server: 'linear', sub: 'alice', event: 'connected' }),
  },
  adminRefusal: {
    full: (logger) => auditAdmin(logger).refusal(fullAdminRefusal satisfies Required<AdminRefusalEvent>),
    least: (logger) => auditAdmin(logger).refusal({ outcome: 'unauthenticated', reason: 'missing-token', status: 401, httpMethod: 'GET', path: '/api/status', client: '127.0.0.1' }),
  },
};

const common = Object.keys(AUDIT_COMMON_FIELDS).filter((key) => key !== 'audit' && key !== 'msg');

describe('the table of audit lines', () => {
  it.each(Object.keys(AUDIT_LINES) as AuditLineName[])('lists every field of a %s line, in the order the line has them', (kind) => {
    expect(keysOfLines()(writers[kind].full)).toEqual([...common, 'audit', ...Object.keys(AUDIT_LINES[kind].fields), 'msg']);
  });

  it.each(Object.keys(AUDIT_LINES) as AuditLineName[])('calls "always" only the fields a %s line has with nothing optional given', (kind) => {
    const fields = AUDIT_LINES[kind].fields as Readonly<Record<string, AuditField>>;
    const always = Object.keys(fields).filter((name) => fields[name]!.when === undefined);
    expect(keysOfLines()(writers[kind].least)).toEqual([...common, 'audit', ...always, 'msg']);
  });
});
