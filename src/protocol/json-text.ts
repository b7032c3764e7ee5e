// JSON text that is the same every time it is written, made once. A page of the catalogue (a
// tools/list answer) is the same for every caller of a view until the catalogue changes, and
// JSON.stringify of it was most of what a tools/list cost the gateway: ~35 us for 50 tools, 70 for
// a full page of 100, on every call. Its items' texts are made once each (memoizedJson), a page's
// text is joined from them (presetJson), and the transport writes a response around a result's
// preset text (responseJson) instead of serializing the result again.
//
// Both rest on one promise: a value given here never changes afterwards. Catalogue items are never
// mutated (a change builds a new view of new items), and presetJson freezes what it is given, so a
// write to it fails loudly rather than leaving a stale text behind.

const texts = new WeakMap<object, string>();
/** A preset value's JSON, in pieces, made on first use (presetJson). */
const presets = new WeakMap<object, () => JsonPieces>();
const utf8 = new TextDecoder();

/**
 * A JSON text in pieces written one after another: strings, and the UTF-8 bytes of texts kept
 * between calls. A page of 100 tools is ~34 KB: as one string per response it was built around
 * the page's text, flattened with the HTTP head and encoded to UTF-8 on every call (~2.5x the
 * page's size allocated per tools/list); its bytes, made once, go to the socket as they are.
 */
export type JsonPieces = readonly (string | Uint8Array)[];

/** JSON.stringify(value), made on first use and kept as long as `value` lives; `value` must never change. */
export function memoizedJson(value: object): string {
  let text = texts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    texts.set(value, text);
  }
  return text;
}

/**
 * Freezes `value` and records how its JSON is written: `write()` must return what
 * JSON.stringify(value) would (key order aside). It is called once, on first use, and only the
 * text's UTF-8 bytes are kept, as long as `value` lives: they are what an HTTP answer writes. The
 * text itself, wanted only for an SSE event, is decoded from them. Returns `value`.
 */
export function presetJson<T extends object>(value: T, write: () => string): Readonly<T> {
  Object.freeze(value);
  let pieces: readonly [Buffer] | undefined;
  presets.set(value, () => (pieces ??= [Buffer.from(write(), 'utf8')]));
  return value;
}

/**
 * When `copy` is `source` (which has a preset text) with `additions` added, and `source` has none
 * of those keys, `copy` gets one too (that text with theirs added) and is frozen. Returns `copy`.
 */
export function presetJsonWith<T extends object>(copy: T, source: object, additions: object): T {
  const pieces = presets.get(source);
  if (pieces === undefined) return copy;
  for (const key of Object.keys(additions)) if (Object.hasOwn(source, key)) return copy;
  const added = JSON.stringify(additions).slice(1, -1);
  Object.freeze(copy);
  presets.set(copy, added === '' ? pieces : () => withAdded(pieces(), added));
  return copy;
}

/** The pieces of an object's JSON with `added` (members' text) before its closing brace; the source's bytes are not copied. */
function withAdded(pieces: JsonPieces, added: string): JsonPieces {
  const last = pieces[pieces.length - 1]!;
  if (pieces.length === 1 && (typeof last === 'string' ? last === '{}' : last.length === 2)) return [`{${added}}`];
  const before = pieces.slice(0, -1);
  if (typeof last === 'string') return [...before, `${last.slice(0, -1)},${added}}`];
  return [...before, last.subarray(0, last.length - 1), `,${added}}`];
}

/** The pieces as one text: for an SSE event, which carries text, and for tests. */
function textOf(pieces: JsonPieces): string {
  let text = '';
  for (const piece of pieces) text += typeof piece === 'string' ? piece : utf8.decode(piece);
  return text;
}

/** The preset text of `value`, if it has one (presetJson). */
export function presetTextOf(value: object): string | undefined {
  const pieces = presets.get(value);
  return pieces && textOf(pieces());
}

/** JSON.stringify(response), with a result's preset text where it has one: the text of responseBody. */
export function responseJson(response: { readonly jsonrpc: '2.0'; readonly id: unknown; readonly result?: unknown }): string {
  const body = responseBody(response);
  return typeof body === 'string' ? body : textOf(body);
}

/**
 * JSON.stringify(response) as an HTTP body: in pieces around a result's preset bytes where it has
 * them (nothing of the result copied), else the one string.
 */
export function responseBody(response: { readonly jsonrpc: '2.0'; readonly id: unknown; readonly result?: unknown }): string | JsonPieces {
  const { result } = response;
  if (typeof result === 'object' && result !== null) {
    const pieces = presets.get(result);
    if (pieces !== undefined) return [`{"jsonrpc":"2.0","id":${JSON.stringify(response.id)},"result":`, ...pieces(), '}'];
  }
  return JSON.stringify(response);
}
