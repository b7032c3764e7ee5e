// The audit line is written as JSON by audit.ts (logger.ts, preformattedLines), not by pino's
// serialiser: these tests hold it to the line pino writes for the same fields, byte for byte but
// the time, so that readers of the log cannot tell the two apart.
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Principal } from '../../src/auth/principal.js';
import type { GatewayObserver, RequestEvent } from '../../src/gateway/observer.js';
import { auditObserver } from '../../src/observe/audit.js';
import { createLogger, isoTimeOncePerMillisecond, preformattedLines, type Logger } from '../../src/observe/logger.js';

function capture(level = 'info'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString('utf8').split('\n').filter((line) => line !== ''));
      callback();
    },
  });
  return { logger: createLogger({ level, destination }), lines };
}

const withoutTime = (line: string): string => line.replace(/,"time":"[^"]+"/, '');

function event(overrides: Partial<RequestEvent>): RequestEvent {
  return {
    method: 'tools/call',
    era: 'legacy',
    server: 'everything',
    name: 'echo',
    outcome: 'ok',
    reason: undefined,
    durationMs: 1.26,
    sessionId: '0123456789abcdef0123456789abcdef',
    requestId: 'req-1',
    principal: undefined,
    errorCode: undefined,
    endpoint: undefined,
    credentials: undefined,
    traceId: undefined,
    spanId: undefined,
    ...overrides,
  };
}

/** The line as pino writes it from an object with the audit line's fields, in the contract's order. */
function pinoAuditLine(logger: Logger, e: RequestEvent, endpoints: boolean): void {
  const line: Record<string, unknown> = { audit: true };
  if (e.requestId !== undefined) line.requestId = e.requestId;
  if (e.traceId !== undefined) {
    line.traceId = e.traceId;
    line.spanId = e.spanId;
  }
  if (e.principal) line.sub = e.principal.sub;
  if (e.sessionId !== '') line.session = e.sessionId.slice(0, 8);
  if (e.era === 'modern') line.era = '2026';
  if (endpoints) line.endpoint = e.endpoint ?? 'default';
  line.method = e.method;
  if (e.server !== undefined) line.server = e.server;
  if (e.name !== undefined) line.name = e.name;
  if (e.credentials !== undefined) line.credentialMode = e.credentials;
  line.outcome = e.outcome;
  if (e.reason !== undefined) line.reason = e.reason;
  if (e.errorCode !== undefined) line.errorCode = e.errorCode;
  line.durationMs = Math.round(e.durationMs * 10) / 10;
  logger.info(line, 'audit');
}

function audit(observer: GatewayObserver, e: RequestEvent): void {
  if (!observer.onRequest) throw new Error('the audit observer has no onRequest');
  observer.onRequest(e);
}

const principal = (sub: string): Principal => ({ sub, scopes: [], claims: {} }) as unknown as Principal;

describe('the audit line, written without pino', () => {
  const events: Array<[string, RequestEvent, boolean]> = [
    ['a plain call of a session', event({}), false],
    ['a 2026 call with no session, on an endpoint', event({ era: 'modern', sessionId: '', endpoint: 'team-a' }), true],
    ['the default endpoint when endpoints are configured', event({}), true],
    [
      'every field, and strings that need escaping',
      event({
        principal: principal('user "quoted" \\ back\u2028sep\u0001ctl \ud83d\ude00 \ud800'),
        requestId: 'req "quoted" \\ \u0001 \ud800',
        server: 'srv\n2',
        name: 'tool<>&\'',
        outcome: 'denied',
        reason: 'policy: "deny" of tools/call',
        errorCode: -32003,
        credentials: 'tokenExchange',
        traceId: '0af7651916cd43dd8448eb211c80319c',
        spanId: 'b7ad6b7169203331',
        durationMs: 12345.678,
      }),
      false,
    ],
    ['a refusal of another method', event({ method: 'resources/subscribe', outcome: 'denied', server: undefined, name: undefined, durationMs: 0 }), false],
  ];

  it.each(events)('%s: the same line pino writes', (_label, e, endpoints) => {
    const { logger, lines } = capture();
    audit(auditObserver(logger, { endpoints }), e);
    pinoAuditLine(logger, e, endpoints);
    expect(lines).toHaveLength(2);
    expect(withoutTime(lines[0]!)).toBe(withoutTime(lines[1]!));
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'info', pid: process.pid, service: 'switchboard', audit: true, msg: 'audit' });
  });

  it('writes each of many lines from its own values, however often they were seen before', () => {
    const { logger, lines } = capture();
    const observer = auditObserver(logger);
    const sequence = Array.from({ length: 40 }, (_, index) =>
      event({
        sessionId: `session${index % 3}-0123456789abcdef`,
        name: index % 5 === 0 ? `tool-${index}` : 'echo',
        outcome: index % 7 === 0 ? 'error' : 'ok',
        principal: index % 2 === 0 ? principal(`user-${index % 4}`) : undefined,
      }),
    );
    for (const e of sequence) {
      audit(observer, e);
      pinoAuditLine(logger, e, false);
    }
    expect(lines).toHaveLength(2 * sequence.length);
    for (let index = 0; index < lines.length; index += 2) expect(withoutTime(lines[index]!)).toBe(withoutTime(lines[index + 1]!));
  });

  it('writes every duration as pino does, to a tenth of a millisecond', () => {
    const { logger, lines } = capture();
    const observer = auditObserver(logger);
    const durations = [0, -0, 0.04, 0.05, 0.949, 0.95, 1, 1.26, 9.96, 99.99, 123456.75, 3.4e8 + 0.05, 214748364.7, 214748364.8, 1e12 + 0.3, 2 ** 53];
    for (let index = 0; index < 200; index++) durations.push(Math.random() * 10 ** (index % 9));
    for (const durationMs of durations) {
      audit(observer, event({ durationMs }));
      pinoAuditLine(logger, event({ durationMs }), false);
    }
    expect(lines).toHaveLength(2 * durations.length);
    for (let index = 0; index < lines.length; index += 2) expect(withoutTime(lines[index]!)).toBe(withoutTime(lines[index + 1]!));
  });

  it('follows the logger: its level, and bindings set after it was made', () => {
    const quiet = capture('warn');
    audit(auditObserver(quiet.logger), event({}));
    expect(quiet.lines).toEqual([]);

    const { logger, lines } = capture();
    const preformatted = preformattedLines(logger);
    logger.setBindings({ replica: 'r-1' });
    preformatted.info('"audit":true', 'audit');
    logger.info({ audit: true }, 'audit');
    expect(withoutTime(lines[0]!)).toBe(withoutTime(lines[1]!));
    expect(JSON.parse(lines[0]!)).toMatchObject({ replica: 'r-1' });
  });

  it('is not written for methods that reach no item, unless refused', () => {
    const { logger, lines } = capture();
    audit(auditObserver(logger), event({ method: 'tools/list', server: undefined, name: undefined }));
    expect(lines).toEqual([]);
  });
});

describe('the time of a line', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is the ISO time of its millisecond, across seconds, years and the same millisecond twice', () => {
    vi.useFakeTimers();
    const instants = [
      Date.UTC(2026, 10, 26, 6, 53, 1, 428),
      Date.UTC(2026, 10, 26, 6, 53, 1, 428),
      Date.UTC(2026, 10, 26, 6, 53, 1, 429),
      Date.UTC(2026, 10, 26, 6, 53, 1, 999),
      Date.UTC(2026, 10, 26, 6, 53, 2, 0),
      Date.UTC(2026, 10, 26, 6, 53, 2, 7),
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      Date.UTC(2027, 0, 1, 0, 0, 0, 0),
      Date.UTC(2026, 10, 26, 6, 53, 1, 50),
      Date.UTC(10_000, 0, 1, 0, 0, 0, 12),
    ];
    for (const instant of instants) {
      vi.setSystemTime(instant);
      expect(isoTimeOncePerMillisecond()).toBe(`,"time":"${new Date(instant).toISOString()}"`);
    }
  });
});
