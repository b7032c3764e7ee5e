// What the metrics' labels mean and which values they take, for docs/reference/metrics.md. Name,
// type, help and label names come from the registry itself (scripts/docs/metrics.ts builds it as
// main.ts does); this adds what a help line cannot hold. The generator refuses a label without a
// meaning here, or an entry for a metric or label the registry does not have, so a new label is
// documented where it is defined. Value lists come from the sets the code uses.
import { LIMIT_REFUSAL_REASONS } from '../gateway/calls/server-limits.js';
import { CONNECTION_OUTCOMES, NOTIFICATION_METHODS, RPC_METHODS } from './metrics.js';

export interface MetricDoc {
  /** Label name -> what it means and the values it takes. */
  readonly labels?: Readonly<Record<string, string>>;
  /** When series appear or how the value is read, where that is not obvious. */
  readonly note?: string;
}

const codes = (values: Iterable<string>): string =>
  [...values].map((value) => `\`${value}\``).join(', ');

const SERVER =
  'The upstream\'s [slug](../../src/config/server-names.ts) (`github` for a server named `GitHub`; the config name itself for names like `everything`).';
const RPC_SERVER = `${SERVER} \`""\` (empty) when no upstream took part and the gateway answered alone: the merged lists, \`ping\`, unknown tools and methods. \`server!=""\` selects upstream traffic.`;
const RPC_METHOD = `The MCP method: ${codes(RPC_METHODS)}; anything else \`other\`.`;

export const METRIC_DOCS: Readonly<Record<string, MetricDoc>> = {
  switchboard_rpc_requests_total: {
    labels: {
      method: RPC_METHOD,
      server: RPC_SERVER,
      outcome:
        '`ok`; `error` (a JSON-RPC error answer: unknown tool, bad params, upstream down or timed out, ...); `denied` (policy, or a server\'s limit).',
      era: '`2025` (a request in a session) or `2026` (a stateless 2026-07-28 request).',
      mcp_endpoint:
        'Only when `endpoints` are configured: the endpoint\'s name, `default` for `server.path`. Not `endpoint`: the Prometheus Operator puts a target label of that name on every series.',
    },
  },
  switchboard_rpc_duration_seconds: {
    labels: { method: RPC_METHOD, server: RPC_SERVER },
  },
  switchboard_notifications_forwarded_total: {
    labels: { method: `The notification: ${codes(NOTIFICATION_METHODS)}; anything else \`other\`.` },
    note: 'A notification to 40 sessions adds 40.',
  },
  switchboard_list_change_deferrals_total: {
    labels: {
      outcome:
        '`deferred`: a list change the session store did not take when it happened (Redis down, frozen, read-only), kept on this replica; ' +
        '`announced`: a kept change this replica announced once the store answered; `other-replica`: a kept change another replica claimed and announced; ' +
        '`failed`: a list change never announced, for an error other than the store\'s absence (its warning says which).',
    },
    note:
      'Alert on any increase of `failed`, and on `deferred` growing while `announced` and `other-replica` do not follow with the store up: ' +
      'sessions and 2026 listens are not hearing of list changes. Kept changes are tried again every half second.',
  },
  switchboard_upstream_up: { labels: { server: SERVER } },
  switchboard_upstream_restarts_total: { labels: { server: SERVER } },
  switchboard_upstream_connect_failures_total: { labels: { server: SERVER } },
  switchboard_connection_events_total: {
    labels: {
      server: SERVER,
      outcome: `${codes(CONNECTION_OUTCOMES)}: a person connected (or connected again); their connection was refreshed; a refresh failed (the provider did not answer well; the next call tries again); the provider refused the refresh token (the person is asked to connect again); they disconnected.`,
    },
    note: 'A series appears with its first event. How many people are connected now is on the status page (per server and state), not a metric: counting reads the store.',
  },
  switchboard_upstream_auth_challenges_total: {
    labels: { server: SERVER, status: 'The HTTP status the upstream answered: `401`, or `403` with a challenge.' },
    note: 'A series appears with its first refusal.',
  },
  switchboard_http_requests_total: {
    labels: {
      route:
        'The MCP path (`/mcp`), each configured endpoint\'s path, the legacy SSE paths (`/sse`, `/sse/message`), `/healthz`, `/readyz`, `/metrics`, `/.well-known/*`; anything else `other`.',
      method: 'The HTTP method: `GET`, `POST`, `DELETE`, `HEAD`, `OPTIONS`, `PUT`, `PATCH`; anything else `other`.',
      status: 'The HTTP status code answered (`200`, `401`, `429`, ...).',
    },
  },
  switchboard_limit_refusals_total: {
    labels: { server: SERVER, kind: `Which limit refused: ${codes(LIMIT_REFUSAL_REASONS)}.` },
    note: 'A series appears with its first refusal.',
  },
  switchboard_sessions_active: {
    note: 'Read from the session store at scrape time and cached for 1 s; while the store does not answer, the last count stays (and `switchboard_session_store_up` is 0).',
  },
  switchboard_pin_mismatches: {
    labels: {
      server: SERVER,
      kind: '`changed` (the live definition differs from its pin), `unpinned` (no pin; counted when `pinning.unpinnedTools` is `withhold`), `missing` (pinned, no longer listed).',
    },
    note: 'The state now, not a count of detections. No series while pinning is off.',
  },
  switchboard_tools_withheld: {
    labels: { server: SERVER },
    note: 'Above 0: an upstream changed a reviewed tool, or lists one nobody reviewed. No series while pinning is off.',
  },
};
