// How deep a JSON text nests, found before it is parsed. V8's JSON.parse copes with a million
// nested arrays, but the value then breaks whatever recurses over it later (JSON.stringify throws
// RangeError at ~10,000 levels; structured clones, deep freezes, loggers), and parsing a 4 MiB
// `[[[[...` costs a second of CPU. One pass over the characters with an early exit is cheap.

/** MCP messages (tool arguments included) do not come close to this. */
export const MAX_JSON_DEPTH = 64;

export function jsonDepthExceeds(text: string, maxDepth: number = MAX_JSON_DEPTH): boolean {
  if (!hasMoreOpenersThan(text, maxDepth)) return false;
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c /* \ */) index++;
      else if (code === 0x22 /* " */) inString = false;
      continue;
    }
    if (code === 0x22) inString = true;
    else if (code === 0x5b /* [ */ || code === 0x7b /* { */) {
      if (++depth > maxDepth) return true;
    } else if (code === 0x5d /* ] */ || code === 0x7d /* } */) depth--;
  }
  return false;
}

/**
 * Whether the text holds more than `limit` opening brackets, in strings or not: nesting deeper than
 * `limit` needs that many, so with fewer the scan above has nothing to find. Counted with indexOf,
 * a native search about fifteen times faster than the scan, which every POST's body went through.
 */
function hasMoreOpenersThan(text: string, limit: number): boolean {
  let count = 0;
  for (let at = text.indexOf('{'); at !== -1; at = text.indexOf('{', at + 1)) if (++count > limit) return true;
  for (let at = text.indexOf('['); at !== -1; at = text.indexOf('[', at + 1)) if (++count > limit) return true;
  return false;
}
