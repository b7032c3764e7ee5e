// JSON text that is the same every time it is written, made once. A page of the catalogue (a
// tools/list answer) is the same for every caller of a view until the catalogue changes, and
// JSON.stringify of it was most of what a tools/list cost the gateway, on every call
// (docs/decisions/0012-json-text-made-once.md). Its items' texts are made once each (memoizedJson),
// a page's text is joined from them (presetJson), and the transport writes a response around a
// result's preset text (responseJson) instead of serializing the result again. An upstream's result
// is written the same way, from the text it came in (presetJsonText, result-text.ts).
//
// All rest on one promise: a value given here never changes afterwards. Catalogue items are never
// mutated (a change builds a new view of new items), results are copied on write
// (gateway/catalogue/rewrite-uris.ts, copy-with.ts), and what is given a text is frozen, so a write
// to it fails loudly rather than leaving a stale text behind.

import { jsonIdText } from './json-scalars.js';

const texts = new WeakMap<object, string>();
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
  return OwnPieces.give(value, () => [Buffer.from(write(), 'utf8')]);
}

/** A constructor that hands back the object it is given: a subclass's fields are then added to that object. */
class Returning {
  constructor(object: object) {
    return object;
  }
}

/**
 * An object's own JSON pieces, in a private field added to the object itself (the subclass of a
 * constructor that returns its argument is the standard way to give any object one): a page's,
 * made on first use, or an upstream result's text. A WeakMap entry per upstream answer cost about
 * fifteen times as much in a loaded gateway's profile (WeakMap.set), and so did defineProperty of a
 * hidden symbol. Nothing else sees the field: not JSON.stringify or Object.keys, not a test's deep
 * equality, and a spread or copy does not take it, so a copy never passes for the text of the
 * object it was made from.
 */
class OwnPieces extends Returning {
  #pieces: JsonPieces | undefined;
  readonly #make: (() => JsonPieces) | undefined;

  private constructor(object: object, pieces: JsonPieces | (() => JsonPieces)) {
    super(object);
    if (typeof pieces === 'function') this.#make = pieces;
    else this.#pieces = pieces;
  }

  /** Gives `value` its pieces, or how to make them on first use (once: a second would throw), and freezes it. */
  static give<T extends object>(value: T, pieces: JsonPieces | (() => JsonPieces)): Readonly<T> {
    new OwnPieces(value, pieces);
    return Object.freeze(value);
  }

  static of(value: object): JsonPieces | undefined {
    if (!(#pieces in value)) return undefined;
    const own = value as OwnPieces;
    return (own.#pieces ??= own.#make!());
  }
}

/**
 * Freezes `value` and records `text` as its JSON: what an upstream wrote for it (result-text.ts),
 * one line, as JSON.stringify's text is (an SSE event carries it). Returns `value`.
 */
export function presetJsonText<T extends object>(value: T, text: string): Readonly<T> {
  return OwnPieces.give(value, [text]);
}

/**
 * When `copy` is `source` (which has a preset text) with `additions` added, and `source` has none
 * of those keys, `copy` gets one too (that text with theirs added) and is frozen. Returns `copy`.
 * Frozen `additions` are taken for constants: their text is made once, not on every 2026 call.
 */
export function presetJsonWith<T extends object>(copy: T, source: object, additions: object): T {
  const pieces = OwnPieces.of(source);
  if (pieces === undefined) return copy;
  for (const key of Object.keys(additions)) if (Object.hasOwn(source, key)) return copy;
  const added = (Object.isFrozen(additions) ? memoizedJson(additions) : JSON.stringify(additions)).slice(1, -1);
  // Made now: a copy is made to be written (a 2026 result, gateway/modern/shape.ts).
  return OwnPieces.give(copy, added === '' ? pieces : withAdded(pieces, added)) as T;
}

/** The pieces of an object's JSON with `added` (members' text) before its closing brace; the source's bytes are not copied. */
function withAdded(pieces: JsonPieces, added: string): JsonPieces {
  const last = pieces[pieces.length - 1]!;
  // An empty object, written by an upstream perhaps with whitespace inside.
  if (pieces.length === 1 && (typeof last === 'string' ? last.slice(1, -1).trim() === '' : last.length === 2)) return [`{${added}}`];
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
  const pieces = OwnPieces.of(value);
  return pieces && textOf(pieces);
}

/** JSON.stringify(response), with a result's preset text where it has one: the text of responseBody. */
export function responseJson(response: { readonly jsonrpc: '2.0'; readonly id: unknown; readonly result?: unknown }): string {
  const body = responseBody(response);
  return typeof body === 'string' ? body : textOf(body);
}

/**
 * JSON.stringify(response) as an HTTP body: in pieces around a result's preset bytes where it has
 * them (nothing of the result copied), one string around a preset text, else the one string.
 */
export function responseBody(response: { readonly jsonrpc: '2.0'; readonly id: unknown; readonly result?: unknown }): string | JsonPieces {
  const { result } = response;
  if (typeof result === 'object' && result !== null) {
    const pieces = OwnPieces.of(result);
    if (pieces !== undefined) {
      const head = `{"jsonrpc":"2.0","id":${jsonIdText(response.id)},"result":`;
      // A text (an upstream's result) is joined: one string to write, not three.
      if (pieces.length === 1 && typeof pieces[0] === 'string') return `${head}${pieces[0]}}`;
      return [head, ...pieces, '}'];
    }
  }
  return JSON.stringify(response);
}
