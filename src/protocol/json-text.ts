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
const writers = new WeakMap<object, () => string>();

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
 * JSON.stringify(value) would (key order aside), from texts made once. Returns `value`.
 */
export function presetJson<T extends object>(value: T, write: () => string): Readonly<T> {
  Object.freeze(value);
  writers.set(value, write);
  return value;
}

/**
 * `copy` is `source` with `additions`' keys after its own: when `source` has a preset text and none
 * of those keys, `copy` gets one too (that text with theirs added) and is frozen. Returns `copy`.
 */
export function presetJsonWith<T extends object>(copy: T, source: object, additions: object): T {
  const write = writers.get(source);
  if (write === undefined) return copy;
  for (const key of Object.keys(additions)) if (Object.hasOwn(source, key)) return copy;
  const added = JSON.stringify(additions).slice(1, -1);
  if (added === '') return presetJson(copy, write) as T;
  return presetJson(copy, () => {
    const text = write();
    return text === '{}' ? `{${added}}` : `${text.slice(0, -1)},${added}}`;
  }) as T;
}

/** The preset text of `value`, if it has one (presetJson). */
export function presetTextOf(value: object): string | undefined {
  return writers.get(value)?.();
}

/** JSON.stringify(response), with a result's preset text where it has one. */
export function responseJson(response: { readonly jsonrpc: '2.0'; readonly id: unknown; readonly result?: unknown }): string {
  const { result } = response;
  if (typeof result === 'object' && result !== null) {
    const text = presetTextOf(result);
    if (text !== undefined) return `{"jsonrpc":"2.0","id":${JSON.stringify(response.id)},"result":${text}}`;
  }
  return JSON.stringify(response);
}
