// Where an upstream's answer has its result, in the text it came in. The gateway relays a result as
// it is, under the client's id: made from the answer's own text, the response costs a copy of that
// text, where JSON.stringify of the parsed result walks the whole value again, in proportion to the
// result's size: a file's contents, a page of rows (docs/decisions/0012-json-text-made-once.md).
//
// Found only when certain: the answer is one of the two shapes the SDKs write without whitespace,
// `{"result":R,"jsonrpc":"2.0","id":I}` (TypeScript) or `{"jsonrpc":"2.0","id":I,"result":R}`
// (Python), and R can hold nothing but the result. The message was parsed from the same line, so
// the line is valid JSON, and with the head and tail of one of those shapes the middle is the
// result's value followed by any further members of the answer. Further members could only be
// another `result`, `jsonrpc` or `id` (the parsed answer has just those three keys), and a key
// spelled in the middle is either written out in quotes or holds a \u escape: a middle with
// neither is the one value. A text with a line break is not kept either (it could not be an SSE
// event's data). Anything else is left to JSON.stringify, as before.

import { presetJsonText } from './json-text.js';

const TS_HEAD = '{"result":';
const PY_HEAD = '{"jsonrpc":"2.0","id":';
const RESULT_KEY = ',"result":';
const VERSION_AND_ID = ',"jsonrpc":"2.0","id":';
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
/**
 * What makes the middle uncertain: what another member of the answer would have to hold (its name,
 * or an escape spelling it), and line breaks, which JSON allows between tokens (an HTTP body) but
 * an SSE event's data cannot carry: a text kept is one line, as JSON.stringify's is.
 */
const UNCERTAIN = /"(?:result|jsonrpc|id)"|\\u|[\n\r]/;
/** An id written as it is by every serializer: nothing in it for JSON to escape. */
const PLAIN_STRING_ID = /^[\w:.-]*$/;

/**
 * Gives an answer's result the text it has in `text`, the text the message was parsed from, when
 * that can be told (presetJsonText): the response to the client is then written from it. Called by
 * the upstream transports on every message they read.
 */
export function keepResultText(text: string, message: object): void {
  if (!('result' in message)) return;
  const resultText = resultTextIn(text, message);
  if (resultText !== undefined) presetJsonText(message.result as object, resultText);
}

/**
 * The text of `answer.result` within `line`, the text `answer` was parsed from, or undefined when
 * it cannot be told for certain. The text is the upstream's own: JSON.stringify of the result
 * would give the same value (its key order, its numbers' spelling aside).
 */
export function resultTextIn(line: string, answer: { readonly id?: unknown; readonly result?: unknown }): string | undefined {
  const { result } = answer;
  // An MCP result is an object: its text must begin and end with its braces (no whitespace around
  // them), which is what the 2026 shape adds its members to (json-text.ts withAdded).
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return undefined;
  const id = idText(answer.id);
  if (id === undefined || !hasOnlyAnswerKeys(answer)) return undefined;
  let text: string;
  if (line.startsWith(TS_HEAD)) {
    // ...R,"jsonrpc":"2.0","id":I}
    const tail = line.length - VERSION_AND_ID.length - id.length - 1;
    if (!line.startsWith(VERSION_AND_ID, tail) || !line.startsWith(id, tail + VERSION_AND_ID.length) || !line.endsWith('}')) return undefined;
    text = line.slice(TS_HEAD.length, tail);
  } else if (line.startsWith(PY_HEAD) && line.startsWith(id, PY_HEAD.length) && line.startsWith(RESULT_KEY, PY_HEAD.length + id.length) && line.endsWith('}')) {
    text = line.slice(PY_HEAD.length + id.length + RESULT_KEY.length, -1);
  } else return undefined;
  if (text.charCodeAt(0) !== OPEN_BRACE || text.charCodeAt(text.length - 1) !== CLOSE_BRACE || UNCERTAIN.test(text)) return undefined;
  return text;
}

/** The id as every serializer writes it, when that is certain. */
function idText(id: unknown): string | undefined {
  if (typeof id === 'number') return Number.isSafeInteger(id) ? `${id}` : undefined;
  if (typeof id === 'string') return PLAIN_STRING_ID.test(id) ? `"${id}"` : undefined;
  return undefined;
}

/** result, jsonrpc, id and nothing else (a member the gateway would not relay must not ride along in the text). */
function hasOnlyAnswerKeys(answer: object): boolean {
  let keys = 0;
  for (const key in answer) {
    if (key !== 'result' && key !== 'jsonrpc' && key !== 'id') return false;
    keys += 1;
  }
  return keys === 3;
}
