// A say over which of an upstream's tools clients see, beyond config and policy: pinned tool
// definitions (src/pinning/) withhold a tool whose live definition is not the one reviewed. The
// catalogue asks it for every tool each time it builds a view, with the upstream's own entry
// (before tool overrides), and tells it each server's current list so it can report what it withholds.
import type { CatalogView } from './catalog-view.js';
import { ERRORS } from '../../protocol/error-catalogue.js';
import { RpcError } from '../errors.js';
import type { RequestTrace } from '../handlers/handler-context.js';
import type { JsonObject } from '../../protocol/json.js';

export interface ToolGate {
  /** Why a tool the upstream lists is withheld from clients (`pin-mismatch`, `unpinned`), or undefined to list it. */
  withheld(server: string, tool: JsonObject): string | undefined;
  /** A server's tools as the catalogue holds them now; undefined when it holds none (the upstream is down or gone). */
  observe(server: string, tools: readonly JsonObject[] | undefined): void;
}

/** A tool that would be listed under `exposedName` but is withheld. */
export interface WithheldTool {
  readonly server: string;
  /** The upstream's own name. */
  readonly name: string;
  readonly reason: string;
}

/**
 * After a tools/call failed as a call of an unknown tool: when the name is one a gate withholds,
 * the trace says so (denied, why, and which tool) for the audit line, while the client's error
 * stays the unknown-tool one.
 */
export function noteWithheld(error: unknown, view: CatalogView, request: { method: string; params?: JsonObject }, trace: RequestTrace): void {
  if (request.method !== 'tools/call' || !(error instanceof RpcError) || error.code !== ERRORS.InvalidParams.code) return;
  const name = request.params?.name;
  const withheld = typeof name === 'string' ? view.withheldTools?.get(name) : undefined;
  if (withheld) Object.assign(trace, { server: withheld.server, name: withheld.name, denied: true, reason: withheld.reason });
}
