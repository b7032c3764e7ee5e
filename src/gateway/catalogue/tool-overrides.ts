// Tool overrides (`mcpServers.<name>.tools`): how a tool the upstream lists becomes the tool the
// client sees. Applied when the merged view is built from the upstreams' raw lists, so they hold
// through every refetch (list_changed, reconnect) and a reload only has to rebuild the view. The
// upstream's own name stays the item's identity: routing, policy and audit keep using it.
import { isJsonObject, type JsonObject } from '../../protocol/json.js';

export interface ToolOverride {
  /** The exposed name, exactly (no prefix added). */
  readonly name?: string | undefined;
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  /** Laid over the upstream's annotations key by key. */
  readonly annotations?: Readonly<Record<string, string | boolean | undefined>> | undefined;
  /** Not listed, and a call gets the unknown-tool error. */
  readonly hidden?: boolean | undefined;
}

/** One server's overrides by the upstream's own tool name. A Map, so a tool named "constructor" is just a name. */
export type ToolOverrides = ReadonlyMap<string, ToolOverride>;

/** Overrides of every server by server config name. */
export type ToolOverridesByServer = ReadonlyMap<string, ToolOverrides>;

export const NO_OVERRIDES: ToolOverridesByServer = new Map();

/** The config's record of overrides as a map (undefined when the server has none). */
export function toolOverridesFrom(record: Readonly<Record<string, ToolOverride>> | undefined): ToolOverrides | undefined {
  if (record === undefined) return undefined;
  const overrides = new Map(Object.entries(record));
  return overrides.size > 0 ? overrides : undefined;
}

/** The tool with the override's title, description and annotations; the name is the namer's (namespace.ts). */
export function applyToolOverride(tool: JsonObject, override: ToolOverride): JsonObject {
  const result: JsonObject = { ...tool };
  if (override.title !== undefined) result.title = override.title;
  if (override.description !== undefined) result.description = override.description;
  if (override.annotations !== undefined) {
    const merged: JsonObject = isJsonObject(tool.annotations) ? { ...tool.annotations } : {};
    for (const [key, value] of Object.entries(override.annotations)) if (value !== undefined) merged[key] = value;
    result.annotations = merged;
  }
  return result;
}

/** Overridden names that the upstream's list does not have, in config order. */
export function unmatchedOverrides(tools: readonly JsonObject[], overrides: ToolOverrides): string[] {
  const listed = new Set(tools.map((tool) => String(tool.name)));
  return [...overrides.keys()].filter((name) => !listed.has(name));
}
