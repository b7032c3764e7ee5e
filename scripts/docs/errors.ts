// docs/reference/errors.md, from the error catalogue (src/protocol/error-catalogue.ts), so the page
// cannot drift from what the gateway answers: every entry with its code, HTTP status, message, when
// it happens and what to do, grouped by how it is answered. An entry added to the catalogue appears
// here without touching this file. `npm run docs:errors` (the convention: ./README.md).
import { ADMIN_ERRORS, ERRORS, modernStatusOf, type ErrorEntry } from '../../src/protocol/error-catalogue.js';
import { generatedNotice, isMain, runGenerator, type GeneratedFiles } from './lib/generated-files.js';
import { code, table } from './lib/markdown.js';

export const ERRORS_PAGE = 'docs/reference/errors.md';

/**
 * The codes that had two meanings before the catalogue, and what each meaning got. Kept here, not
 * in the catalogue: it is history for readers upgrading, not something the gateway answers.
 */
const CHANGED_CODES: readonly { readonly before: string; readonly meaning: string; readonly now: keyof typeof ERRORS }[] = [
  { before: '-32000', meaning: 'transport refusal: bad header, missing session id (400)', now: 'BadRequest' },
  { before: '-32000', meaning: 'no or bad bearer token (401)', now: 'Unauthorized' },
  { before: '-32000', meaning: 'Origin, address or scope refused (403)', now: 'Forbidden' },
  { before: '-32000', meaning: 'HTTP method not allowed (405)', now: 'MethodNotAllowed' },
  { before: '-32000', meaning: 'Accept header (406)', now: 'NotAcceptable' },
  { before: '-32000', meaning: 'Content-Type (415)', now: 'UnsupportedMediaType' },
  { before: '-32000', meaning: 'rate limit (429)', now: 'TooManyRequests' },
  { before: '-32000', meaning: 'draining, keys or session store unavailable (503; in-band for the store)', now: 'ServiceUnavailable' },
  { before: '-32000', meaning: 'a request to the client cancelled (to the upstream)', now: 'RequestCancelled' },
  { before: '-32000', meaning: 'gateway shutting down (to the upstream)', now: 'ShuttingDown' },
  { before: '-32000', meaning: 'no single client session to ask (to the upstream)', now: 'NoClientToAsk' },
  { before: '-32001', meaning: 'session not found (404)', now: 'SessionNotFound' },
  { before: '-32001', meaning: 'request cancelled (client cancellation, shutdown)', now: 'RequestCancelled' },
  { before: '-32600', meaning: 'body too large (413)', now: 'PayloadTooLarge' },
  { before: '-32600', meaning: 'the session ended while the request was served', now: 'SessionEnded' },
  { before: '-32603', meaning: '2026-07-28: request cancelled, gateway shutting down, replica holding the call gone (now -32603 with `data.code`)', now: 'RequestCancelled' },
];

/** A message builder shown with `…` for what the call fills in. */
function shownMessage(entry: ErrorEntry): string {
  const build = entry.message as (...args: string[]) => string;
  return build(...Array.from({ length: build.length }, () => '…'));
}

function status(entry: ErrorEntry): string {
  if (entry.audience === 'upstream') return '— (to the upstream)';
  const base = entry.status === 200 ? '200 (in the answer)' : String(entry.status);
  const modern = modernStatusOf(entry.code);
  return modern !== undefined && modern !== entry.status ? `${base}; ${modern} for 2026-07-28` : base;
}

function entryTable(names: readonly (keyof typeof ERRORS)[]): string {
  const rows = names.map((name) => {
    const entry: ErrorEntry = ERRORS[name];
    const title = entry.sameAs === undefined ? `**${name}**` : `${name} (as ${entry.sameAs})`;
    return [title, String(entry.code), status(entry), code(shownMessage(entry)), entry.when, entry.remedy];
  });
  return table(['Name', 'Code', 'HTTP status', 'Message', 'When it happens', 'What to do'], rows);
}

export function renderErrorsReference(): string {
  // The catalogue's order: JSON-RPC's codes, the specification's, the gateway's own.
  const names = Object.keys(ERRORS) as (keyof typeof ERRORS)[];
  const transport = names.filter((name) => ERRORS[name].status !== 200 && (ERRORS[name] as ErrorEntry).audience !== 'upstream');
  const inAnswer = names.filter((name) => ERRORS[name].status === 200 && (ERRORS[name] as ErrorEntry).audience !== 'upstream');
  const toUpstream = names.filter((name) => (ERRORS[name] as ErrorEntry).audience === 'upstream');
  const lines = [
    '# Errors',
    '',
    generatedNotice('scripts/docs/errors.ts', ['src/protocol/error-catalogue.ts']),
    '',
    'Every error Switchboard answers with, from its one catalogue. Each code has one meaning: entries',
    'marked "(as X)" are cases of X, with the same code and meaning and a message of their own. The',
    'codes of JSON-RPC (-32700, -32600..-32603) and of the MCP specification (-32002, -32020..-32022)',
    'mean what the specification says; the gateway\'s own codes are -32000..-32019 (2026-07-28',
    'reserves -32020..-32099 for the specification).',
    '',
    '- An error an upstream server returns is relayed with the upstream\'s own code, message and data;',
    '  the message ends with `(from upstream "<server>")`. Those codes are the upstream\'s, not listed here.',
    '- A client speaking 2026-07-28 gets the gateway\'s own codes (-32000..-32019) as -32603 (Internal',
    '  error) with the original code in `data.code`, and resource not found as -32602, as that revision asks.',
    '- `data` carries the details a program needs (`server`, `tool`, `reason`, `retryAfterSeconds`...).',
    '- A refusal of the transport comes with an HTTP status and a JSON-RPC error body whose id is the',
    '  request\'s once its body was read (null for a refusal made before that, and for a batch).',
    '',
    '## Refused by the transport',
    '',
    'Answered before the request reaches the gateway (or instead of its answer), with this HTTP status.',
    '',
    entryTable(transport),
    '',
    '## In a JSON-RPC answer',
    '',
    'Answered as the error of a request: in a 200 JSON body or on the request\'s SSE stream. A',
    '2026-07-28 request gets HTTP 404 for an unknown method, and 400 when it is refused before it is',
    'served (a bad `_meta` envelope or `requestState`).',
    '',
    entryTable(inAnswer),
    '',
    '## Sent to an upstream',
    '',
    'The gateway\'s answers to a server\'s own requests (sampling, elicitation, roots) that it cannot relay.',
    '',
    entryTable(toUpstream),
    '',
    '## Admin API',
    '',
    'The admin listener answers `{"error": {"code", "message", ...}}` with a word for a code (its status page answers plain text).',
    '',
    table(
      ['Code', 'HTTP status', 'When it happens', 'What to do'],
      Object.entries(ADMIN_ERRORS).map(([word, entry]) => [code(word), String(entry.status), entry.when, entry.remedy]),
    ),
    '',
    '## Codes that changed',
    '',
    'Before the catalogue some codes had two meanings. What each meaning answers now:',
    '',
    table(
      ['Before', 'Meaning', 'Now'],
      CHANGED_CODES.map(({ before, meaning, now }) => [before, meaning, `${ERRORS[now].code} ${now}`]),
    ),
    '',
  ];
  return lines.join('\n');
}

export function generate(): GeneratedFiles {
  return new Map([[ERRORS_PAGE, renderErrorsReference()]]);
}

if (isMain(import.meta.url)) await runGenerator(generate);
