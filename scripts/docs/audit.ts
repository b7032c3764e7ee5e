// docs/reference/audit-log.md, from the table of audit lines (src/observe/audit-events.ts): each
// kind, when it is written and its fields; the example of each kind is written by audit.ts itself,
// through a logger made as the gateway makes it, so the examples are what the gateway writes.
import type { RequestEvent } from '../../src/gateway/observer.js';
import type { RefusalEvent } from '../../src/http/middleware/refusal.js';
import { AUDIT_COMMON_FIELDS, AUDIT_LINES, type AuditField, type AuditLineName } from '../../src/observe/audit-events.js';
import { auditAdmin, auditConnections, auditObserver, auditRefusals, auditSignIn, auditWithheldTools } from '../../src/observe/audit.js';
import { createLogger } from '../../src/observe/logger.js';
import { generatedNotice, isMain, runGenerator, type GeneratedFiles } from './lib/generated-files.js';
import { code, headingSlug, table } from './lib/markdown.js';

export const AUDIT_PAGE = 'docs/reference/audit-log.md';

const SESSION_ID = 'Xf3k9aQzT1mVb7LwR2cD0g';
const REQUEST_ID = '3f6c1a9e2b7d4c08a5e1f2d3c4b5a697';

/** The lines audit.ts writes for one typical event of each kind, with the time and pid fixed. */
export function exampleLines(): Record<AuditLineName, string> {
  let written = '';
  const destination = { write: (line: string) => (written = line) } as unknown as NodeJS.WritableStream;
  const logger = createLogger({ level: 'info', destination });
  const lineOf = (write: () => void): string => {
    write();
    return written.trim().replace(/"time":"[^"]*"/, '"time":"2026-11-28T09:30:00.000Z"').replace(/"pid":\d+/, '"pid":1');
  };
  const call: RequestEvent = {
    method: 'tools/call',
    era: 'legacy',
    server: 'github',
    name: 'search_repositories',
    outcome: 'ok',
    durationMs: 212.43,
    sessionId: SESSION_ID,
    requestId: REQUEST_ID,
    principal: { sub: 'alice', scopes: ['mcp'], claims: {} },
    endpoint: 'platform',
    credentials: 'perUser',
  };
  const refusal: RefusalEvent = {
    outcome: 'unauthenticated',
    reason: 'invalid-token',
    detail: 'the token has expired',
    status: 401,
    httpMethod: 'POST',
    path: '/mcp',
    client: '10.0.3.7',
    requestId: REQUEST_ID,
  };
  const admin = auditAdmin(logger);
  return {
    request: lineOf(() => auditObserver(logger, { endpoints: true }).onRequest?.(call)),
    httpRefusal: lineOf(() => auditRefusals(logger, () => 'default')(refusal)),
    toolWithheld: lineOf(() =>
      auditWithheldTools(logger)({ server: 'github', name: 'search_repositories', reason: 'pin-mismatch', pinned: 'sha256:9c1e...', live: 'sha256:04ab...' }),
    ),
    adminAction: lineOf(() =>
      admin.action({ action: 'restart', target: 'github', outcome: 'ok', sub: 'alice', client: '127.0.0.1', requestId: REQUEST_ID, durationMs: 812.37 }),
    ),
    connection: lineOf(() => auditConnections(logger)({ server: 'linear', sub: 'alice@example.com', event: 'needs-reconnect', reason: 'invalid_grant' })),
    signIn: lineOf(() => auditSignIn(logger)({ event: 'consented', sub: 'alice@example.com', clientId: 'https://client.example/mcp-client.json', scopes: ['mcp'] })),
    adminRefusal: lineOf(() =>
      admin.refusal({ outcome: 'denied', reason: 'insufficient-scope', detail: 'the token lacks the scope switchboard:admin', status: 403, httpMethod: 'POST', path: '/api/reload', sub: 'bob', client: '127.0.0.1', requestId: REQUEST_ID }),
    ),
  };
}

function fieldTable(fields: Readonly<Record<string, AuditField>>): string {
  return table(
    ['Field', 'Meaning', 'Present'],
    Object.entries(fields).map(([name, field]) => [code(name), field.meaning, field.when === undefined ? 'always' : `when ${field.when}`]),
  );
}

export function auditPage(): string {
  const examples = exampleLines();
  const kinds = Object.entries(AUDIT_LINES) as [AuditLineName, (typeof AUDIT_LINES)[AuditLineName]][];
  return [
    generatedNotice('scripts/docs/audit.ts', ['src/observe/audit-events.ts', 'src/observe/audit.ts']),
    '',
    '# Audit log',
    '',
    'The audit trail is part of the gateway\'s log (JSON lines on stdout): the lines with `"audit": true`',
    '(message `audit`), for example `jq -c \'select(.audit)\'`. It says who (`sub`), which session, what',
    '(method, server, name) and how it ended, for every call of a tool, prompt or resource and for every',
    'request refused for want of a token or a permission. Never logged: arguments, results, tokens,',
    'whole session ids.',
    '',
    'Lines about a request have `method` (the MCP request) or `httpMethod` (refused before it reached the',
    'gateway); the others have `event`: `tool-withheld`, `admin`, `sign-in` or `connection`. Fields appear in the order listed.',
    '',
    ...kinds.map(([kind, line]) => `- [${line.title}](#${headingSlug(line.title)}): ${code(kind === 'request' ? 'method' : kind === 'httpRefusal' ? 'httpMethod' : `event: ${eventOf(kind)}`)}`),
    '',
    '## Fields of every line',
    '',
    fieldTable(AUDIT_COMMON_FIELDS),
    '',
    ...kinds.flatMap(([kind, line]) => [`## ${line.title}`, '', line.written, '', '```json', examples[kind], '```', '', fieldTable(line.fields), '']),
  ].join('\n');
}

/** The `event` value of a kind's lines, as its table says. */
function eventOf(kind: AuditLineName): string {
  const event = (AUDIT_LINES[kind].fields as Readonly<Record<string, AuditField>>).event;
  return /`([^`]+)`/.exec(event?.meaning ?? '')?.[1] ?? '';
}

export function generate(): GeneratedFiles {
  return new Map([[AUDIT_PAGE, auditPage()]]);
}

if (isMain(import.meta.url)) await runGenerator(generate);
