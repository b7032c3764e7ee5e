// What a pin covers, and its digest. A tool's definition is the part of a tools/list entry that
// tells a model what the tool does and how to call it; a change there is what an operator reviewed
// and must review again. Other fields (icons, _meta, execution hints) may change freely.
//
// The digest is SHA-256 of the definition's canonical JSON (RFC 8785, JSON Canonicalization
// Scheme): object keys sorted by UTF-16 code units, no whitespace, numbers and strings as
// JSON.stringify writes them. So the key order an upstream happens to send does not count as a
// change, while every character of a description and every array element's position does.
import { createHash } from 'node:crypto';
import { isJsonObject, type JsonObject } from '../protocol/json.js';

/** In the order the lock file shows them. */
export const PINNED_FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;

export type PinnedField = (typeof PINNED_FIELDS)[number];

/** A tool's pinned fields, as the upstream sent them (absent fields left out). */
export type ToolDefinition = { readonly name: string } & { readonly [field in Exclude<PinnedField, 'name'>]?: unknown };

/** The pinned fields of a tools/list entry, in PINNED_FIELDS order. */
export function pinnedDefinition(tool: JsonObject): ToolDefinition {
  const definition: Record<string, unknown> = { name: String(tool.name) };
  for (const field of PINNED_FIELDS) {
    if (field !== 'name' && tool[field] !== undefined) definition[field] = tool[field];
  }
  return definition as ToolDefinition;
}

/** RFC 8785 canonical JSON of a JSON value. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    // Nothing parsed from JSON is NaN or infinite; JSON.stringify would turn them into null.
    if (!Number.isFinite(value)) throw new TypeError(`not a JSON number: ${value}`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item === undefined ? null : item)).join(',')}]`;
  if (isJsonObject(value)) {
    // The default sort compares UTF-16 code units, which is what RFC 8785 asks for.
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  throw new TypeError(`not a JSON value: ${typeof value}`);
}

/** `sha256:` and the hex SHA-256 of the definition's canonical JSON. */
export function definitionDigest(definition: ToolDefinition): string {
  return `sha256:${createHash('sha256').update(canonicalJson(definition)).digest('hex')}`;
}

export const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;

/**
 * The digest of a live tool, remembered per tools/list entry: the catalogue keeps an upstream's
 * entries until its list changes, and asks for every tool at each rebuild.
 */
const liveDigests = new WeakMap<JsonObject, { definition: ToolDefinition; digest: string }>();

export function liveDefinition(tool: JsonObject): { definition: ToolDefinition; digest: string } {
  let known = liveDigests.get(tool);
  if (!known) {
    const definition = pinnedDefinition(tool);
    known = { definition, digest: definitionDigest(definition) };
    liveDigests.set(tool, known);
  }
  return known;
}
