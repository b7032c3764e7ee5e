// The audit trail's lines, described once: each kind of line, when it is written, and its fields in
// the order a line has them, with what each means and when it is there. audit.ts writes the lines
// (the fields it names are typed against this table, and test/unit/audit-events.test.ts holds every
// line it writes to it); docs/reference/audit-log.md is generated from it (scripts/docs/audit.ts).
import { LIMIT_REFUSAL_REASONS } from '../gateway/calls/server-limits.js';
import { WITHHELD_REASONS } from '../pinning/enforcer.js';
import { SIGN_IN_AUDIT_EVENTS } from '../signin/audit-events.js';

export interface AuditField {
  /** What the field holds, and its values where they are few. */
  readonly meaning: string;
  /** When the line has the field; absent: always. */
  readonly when?: string;
}

export interface AuditLineKind {
  readonly title: string;
  /** When a line of this kind is written. */
  readonly written: string;
  /** In the order the line has them (after the fields every line has). */
  readonly fields: Readonly<Record<string, AuditField>>;
}

const codes = (values: Iterable<string>): string =>
  [...values].map((value) => `\`${value}\``).join(', ');

const SUB: AuditField = { meaning: 'The token\'s subject (`sub` claim): who asked.', when: 'auth is configured and the token was read' };
const SESSION: AuditField = {
  meaning: 'The first 8 characters of the session id (the whole id is a credential, and never logged).',
  when: 'the request named a session',
};
const ENDPOINT: AuditField = {
  meaning: 'The configured endpoint the request came in on; `default` for `server.path`.',
  when: '`endpoints` are configured',
};
const REQUEST_ID: AuditField = { meaning: 'The request id (`X-Request-Id`, given or made), the same as on the request\'s access line.' };
const CLIENT: AuditField = { meaning: 'The peer address of the connection.' };
const HTTP_METHOD: AuditField = { meaning: 'The HTTP method of the refused request.' };
const DETAIL_WHEN = 'there is more to say than `reason`';
/** Why the access checks refused a request: the `reason` of its audit line (http/middleware/refusal.ts). */
export const HTTP_REFUSAL_REASONS = ['missing-token', 'invalid-token', 'keys-unavailable', 'insufficient-scope', 'origin', 'host', 'rate-limit'] as const;
export type HttpRefusalReason = (typeof HTTP_REFUSAL_REASONS)[number];

/** Every line: pino's fields, `"audit": true` to select the trail, and the message. */
export const AUDIT_COMMON_FIELDS: Readonly<Record<string, AuditField>> = {
  level: { meaning: 'Always `info`.' },
  time: { meaning: 'When the line was written, ISO 8601 in UTC to the millisecond.' },
  pid: { meaning: 'The gateway\'s process id.' },
  service: { meaning: 'Always `switchboard`.' },
  audit: { meaning: 'Always `true`: what sets the audit trail apart from the other log lines.' },
  msg: { meaning: 'Always `audit`, last.' },
};

export const AUDIT_LINES = {
  request: {
    title: 'A request',
    written:
      'One line per `tools/call`, `prompts/get` and `resources/read`, whatever its outcome, and per request of any other method refused by policy (a subscription to or completion of an item the caller may not see).',
    fields: {
      requestId: { ...REQUEST_ID, when: 'the request came with or was given one (every HTTP request is)' },
      traceId: { meaning: 'The trace of the request\'s span.', when: 'tracing is on' },
      spanId: { meaning: 'The request\'s span in that trace.', when: 'tracing is on' },
      sub: SUB,
      session: { ...SESSION, when: 'the request is in a 2025 session (a 2026-07-28 request has none)' },
      era: { meaning: '`2026`: a stateless 2026-07-28 request.', when: 'the request is a 2026 one (absent for 2025 sessions)' },
      endpoint: ENDPOINT,
      method: { meaning: 'The MCP method (`tools/call`, `prompts/get`, `resources/read`, ...).' },
      server: { meaning: 'The upstream server\'s config name (as written, not its slug).', when: 'the request went to, or was meant for, one upstream' },
      name: { meaning: 'The upstream\'s own tool or prompt name, or the resource URI.', when: 'the request is a call, get or read' },
      credentialMode: {
        meaning:
          'What the request presented to its upstream: `config` (the server\'s `headers` or `env`, the same for everyone), `tokenExchange` or `perUser` (the caller\'s own).',
        when: 'the request reached an upstream',
      },
      outcome: { meaning: '`ok`; `error` (the upstream or the request failed); `denied` (policy, a server\'s limit, a tool withheld by pinning).' },
      reason: {
        meaning: `Why a \`denied\` request was refused: a server's limit (${codes(LIMIT_REFUSAL_REASONS)}) or a tool withheld by pinning (${codes(Object.values(WITHHELD_REASONS))}).`,
        when: 'denied by a limit or by pinning (absent when policy refused)',
      },
      errorCode: { meaning: 'The JSON-RPC error code answered.', when: 'the outcome is not `ok`' },
      durationMs: { meaning: 'From receiving the request to having its answer, in milliseconds to a tenth.' },
    },
  },
  httpRefusal: {
    title: 'A request refused at the HTTP level',
    written:
      'One line per request to an MCP path that the access checks refused before it reached the gateway: no or a bad token, a missing scope, a foreign Origin or Host, the rate limit.',
    fields: {
      sub: { ...SUB, when: 'the token was valid (a missing scope, the rate limit)' },
      session: SESSION,
      endpoint: ENDPOINT,
      httpMethod: HTTP_METHOD,
      outcome: { meaning: '`unauthenticated` (no usable token) or `denied` (a missing scope, a foreign Origin or Host, the rate limit).' },
      reason: { meaning: `Why: ${codes(HTTP_REFUSAL_REASONS)}.` },
      detail: {
        meaning: 'What exactly was wrong, for the operator (the token\'s problem, the Origin or Host sent, the scope missing); never the token.',
        when: DETAIL_WHEN,
      },
      status: { meaning: 'The HTTP status answered: `401`, `403`, `429` or `503`.' },
      client: CLIENT,
      requestId: { ...REQUEST_ID, when: 'the request has one' },
    },
  },
  toolWithheld: {
    title: 'A tool withheld by pinning',
    written:
      'One line when pinning starts withholding a tool, once per tool and live definition: no request caused it, so it has no `method`, `sub` or `session`. Each call of the tool afterwards has its own request line, `denied` with the same reason.',
    fields: {
      event: { meaning: 'Always `tool-withheld`.' },
      server: { meaning: 'The upstream server\'s config name.' },
      name: { meaning: 'The upstream\'s own tool name.' },
      outcome: { meaning: 'Always `denied`.' },
      reason: { meaning: `${codes([WITHHELD_REASONS.changed])} (the live definition differs from its pin) or ${codes([WITHHELD_REASONS.unpinned])} (the tool has no pin).` },
      pinned: { meaning: 'The pinned definition\'s digest (`sha256:...`).', when: 'the tool has a pin' },
      live: { meaning: 'The live definition\'s digest.' },
    },
  },
  adminAction: {
    title: 'An operator\'s action on the admin listener',
    written:
      'One line per action asked of the admin listener: restart a server, reload the config, drain, resume; in sign-in mode, a person signing in to the status page in a browser (or failing to) and signing out.',
    fields: {
      event: { meaning: 'Always `admin`.' },
      sub: { ...SUB, when: 'the admin listener has auth' },
      client: CLIENT,
      action: { meaning: '`restart`, `reload`, `drain`, `resume`, `sign-in` or `sign-out` (the status page\'s browser session, sign-in mode).' },
      target: { meaning: 'What it acted on: the server of a restart.', when: 'the action is a restart' },
      outcome: { meaning: '`ok`; `refused` (nothing was done: an unknown server, an invalid config); `error` (it was tried and failed).' },
      reason: {
        meaning: 'Why, in the operator\'s words (config problems name key paths, never values); for a sign-in, what the authorization server answered, or that the person lacks the admin scope.',
        when: 'the outcome is not `ok`, or a person signed in without the admin scope',
      },
      durationMs: { meaning: 'How long the action took, in milliseconds to a tenth.' },
      requestId: { ...REQUEST_ID, when: 'the request has one' },
    },
  },
  signIn: {
    title: 'A step of sign-in',
    written:
      'One line per step of sign-in mode (`auth.signIn`): a person signed in at the team\'s provider (or failed to), consented (or it was automatic, or declined), a client registered, a token issued, refreshed or refused, a refresh token used twice (its whole family is revoked), a revocation asked.',
    fields: {
      event: { meaning: 'Always `sign-in`.' },
      step: { meaning: `What happened: ${codes(SIGN_IN_AUDIT_EVENTS)}.` },
      sub: { ...SUB, meaning: 'The person (the `sub` of the tokens Switchboard issues them).', when: 'the person is known at this step' },
      clientId: { meaning: 'The OAuth client: its client ID (a metadata document\'s URL, a registered or configured ID).', when: 'the client is known at this step' },
      scopes: { meaning: 'The scopes granted.', when: 'the step is a consent' },
      reason: { meaning: 'The OAuth error and its description, never a token or code.', when: 'the step failed' },
      client: { ...CLIENT, when: 'the step is a request of the client (registration, token endpoint)' },
    },
  },
  connection: {
    title: 'A change to a person\'s connection',
    written:
      'One line when a person connects their account on a server with `credentials.connection` (or connects again), when refreshing their connection fails, when the provider no longer honours it (they must connect again), and when they disconnect it (their Connections page). Never a token, code or verifier.',
    fields: {
      event: { meaning: 'Always `connection`.' },
      step: { meaning: '`connected`, `refresh-failed` (the provider did not answer the refresh; the next call tries again), `needs-reconnect` (the provider refused the refresh token: the person is asked to connect again) or `disconnected`.' },
      server: { meaning: 'The upstream server\'s config name.' },
      sub: { meaning: 'The person (their `sub` at the gateway, not at the upstream).' },
      reason: { meaning: 'The OAuth error (`invalid_grant`, ...) or the kind of failure, never a token.', when: 'the step is `refresh-failed` or `needs-reconnect`' },
      revoked: { meaning: '`true` when the provider was asked to revoke the tokens (it offers revocation, RFC 7009), `false` when it offers none: they were only forgotten.', when: 'the step is `disconnected`' },
    },
  },
  adminRefusal: {
    title: 'A request refused by the admin listener',
    written: 'One line per request to the admin listener refused for want of a token (or, in sign-in mode, a session cookie) or of the admin scope, or from another page or host.',
    fields: {
      event: { meaning: 'Always `admin`.' },
      sub: { ...SUB, when: 'the token was valid (a missing scope)' },
      client: CLIENT,
      httpMethod: HTTP_METHOD,
      path: { meaning: 'The path asked for.' },
      outcome: { meaning: '`unauthenticated` (no usable token) or `denied` (the admin scope is missing).' },
      reason: { meaning: '`missing-token`, `invalid-token` (a bad token, or a session cookie that was changed or expired), `keys-unavailable`, `insufficient-scope`, `origin` (another page, or a signed-in change without a same-origin `Origin`) or `host`.' },
      detail: { meaning: 'What exactly was wrong, for the operator (the token\'s problem, the scope missing); never the token.', when: DETAIL_WHEN },
      status: { meaning: 'The HTTP status answered: `401`, `403` or `503`.' },
      requestId: { ...REQUEST_ID, when: 'the request has one' },
    },
  },
} as const satisfies Readonly<Record<string, AuditLineKind>>;

export type AuditLineName = keyof typeof AUDIT_LINES;

/** The fields a line of `kind` may have besides the common ones: what audit.ts's lines are typed as. */
export type AuditLine<K extends AuditLineName> = { readonly [F in keyof (typeof AUDIT_LINES)[K]['fields']]?: unknown } & { readonly audit: true };
