// MCP extensions (capabilities' `extensions`, SEP-1724) the gateway passes between its clients and
// its upstreams. A client's declaration of another extension is not passed on: the gateway does not
// carry what that extension adds, so an upstream must not adapt to it. The tasks half of issue 44
// adds its extension here.
import { isJsonObject, type JsonObject } from './json.js';

/** MCP Apps: `ui://` resources rendered by the host, tools that name them in `_meta.ui`. */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/**
 * Tasks, as 2026-07-28 has them (SEP-2663). A client's declaration is not passed on as it is: the
 * gateway decides which calls are tasks (handlers/tasks.ts), and a 2026 upstream is told so on
 * exactly those requests and on the extension's own methods (upstream/modern-dialect.ts).
 */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** The MIME type of an MCP App's HTML resource. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/**
 * Each extension the gateway passes on, with what it declares of it as a client where it cannot
 * name its caller's own declaration (a connection shared by every session, see upstream/connection.ts).
 */
export const PASSED_EXTENSIONS: Readonly<Record<string, Record<string, string[]>>> = {
  [UI_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] },
};

/**
 * A client's capabilities as the gateway passes them to an upstream: only the extensions it passes
 * on. The same object when there is nothing to drop (the common case: no `extensions` at all).
 */
export function withPassedExtensions(capabilities: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const declared = capabilities.extensions;
  if (declared === undefined) return capabilities;
  const passed: JsonObject = {};
  let dropped = !isJsonObject(declared);
  if (isJsonObject(declared)) {
    for (const key of Object.keys(declared)) {
      if (Object.hasOwn(PASSED_EXTENSIONS, key)) passed[key] = declared[key];
      else dropped = true;
    }
  }
  if (!dropped) return capabilities;
  const { extensions: _dropped, ...rest } = capabilities;
  return Object.keys(passed).length > 0 ? { ...rest, extensions: passed } : rest;
}

/**
 * The `extensions` a gateway announces as a server: each passed extension that any upstream
 * announces, with the first such upstream's settings (config order). Undefined when none does.
 */
export function announcedExtensions(upstreams: readonly { readonly capabilities: Readonly<Record<string, unknown>> }[]): JsonObject | undefined {
  let announced: JsonObject | undefined;
  for (const { capabilities } of upstreams) {
    const extensions = capabilities.extensions;
    if (!isJsonObject(extensions)) continue;
    for (const key of Object.keys(extensions)) {
      if (!Object.hasOwn(PASSED_EXTENSIONS, key) || (announced !== undefined && Object.hasOwn(announced, key))) continue;
      announced ??= {};
      announced[key] = extensions[key];
    }
  }
  return announced;
}
