// The request path of a connection to a 2026-07-28 upstream, where the gateway's 2025-shaped
// requests that the era dropped are answered in the era's own terms, so the gateway need not know
// which era an upstream speaks:
//   - resources/subscribe | unsubscribe: the URI joins or leaves the connection's resource listen
//     (modern-listens.ts); answered {} once the upstream acknowledged the new filter.
//   - logging/setLevel: there is no connection-wide level any more, only a per-request `_meta` key
//     (server/utilities/logging); the level is kept and put on every request that has none of its
//     own, and the setLevel is answered {} here. Until one arrives, requests carry no level and a
//     modern upstream sends no log messages, as the spec has it (logging became opt-in).
//   - ping does not exist; server/discover is the cheap request every modern server must answer.
// Everything else goes out as it is; the SDK adds the reserved `_meta` envelope, under any keys
// the caller set itself (see types.ts).
import { withMetaEntry } from '../protocol/copy-with.js';
import { mirroredHeaders } from '../protocol/mirrored-params.js';
import { upstreamError } from './errors.js';
import type { ModernListens } from './modern-listens.js';
import { isPlainObject } from './request-dialect.js';
import type { JsonObject, UpstreamRequestOptions } from './types.js';

export const LOG_LEVEL_META_KEY = 'io.modelcontextprotocol/logLevel';

export type SendRequest = (
  method: string,
  params: JsonObject | undefined,
  /** headers: extra HTTP headers of this one request (a Streamable HTTP upstream; stdio ignores them). */
  options: UpstreamRequestOptions & { timeoutMs: number; headers?: Record<string, string> },
) => Promise<JsonObject>;

export class ModernRequests {
  #logLevel: string | undefined;
  /**
   * Input schemas of the upstream's tools, as its tools/list pages pass through here: a tools/call
   * mirrors the parameters they mark with x-mcp-header into Mcp-Param-* headers (SEP-2243), as
   * a 2026 client must, so that the upstream (or whatever stands in front of it) accepts it.
   */
  readonly #toolSchemas = new Map<string, JsonObject>();

  constructor(
    private readonly server: string,
    private readonly send: SendRequest,
    private readonly listens: ModernListens,
    logLevel?: string,
  ) {
    this.#logLevel = logLevel;
  }

  async request(method: string, params: JsonObject | undefined, options: UpstreamRequestOptions & { timeoutMs: number }): Promise<JsonObject> {
    switch (method) {
      case 'resources/subscribe':
        await this.listens.subscribe(this.#stringParam(params, 'uri'));
        return {};
      case 'resources/unsubscribe':
        await this.listens.unsubscribe(this.#stringParam(params, 'uri'));
        return {};
      case 'logging/setLevel':
        this.#logLevel = this.#stringParam(params, 'level');
        return {};
      case 'tools/list': {
        const page = await this.send(method, withLogLevel(params, this.#logLevel), options);
        this.#rememberSchemas(params, page);
        return page;
      }
      case 'tools/call': {
        const schema = typeof params?.name === 'string' ? this.#toolSchemas.get(params.name) : undefined;
        const headers = schema && mirroredHeaders(schema, params?.arguments);
        const withHeaders = headers && Object.keys(headers).length > 0 ? { ...options, headers } : options;
        return this.send(method, withLogLevel(params, this.#logLevel), withHeaders);
      }
      default:
        return this.send(method, withLogLevel(params, this.#logLevel), options);
    }
  }

  #rememberSchemas(params: JsonObject | undefined, page: JsonObject): void {
    // A first page starts the list afresh: tools that are gone take their schemas with them.
    if (params?.cursor === undefined) this.#toolSchemas.clear();
    if (!Array.isArray(page.tools)) return;
    for (const tool of page.tools as unknown[]) {
      if (isPlainObject(tool) && typeof tool.name === 'string' && isPlainObject(tool.inputSchema)) this.#toolSchemas.set(tool.name, tool.inputSchema);
    }
  }

  /** Proves the upstream answers: server/discover, which every modern server implements. */
  ping(timeoutMs: number): Promise<JsonObject> {
    return this.send('server/discover', undefined, { timeoutMs });
  }

  #stringParam(params: JsonObject | undefined, key: string): string {
    const value = params?.[key];
    if (typeof value !== 'string') throw upstreamError(this.server, 'ParamNotString', key);
    return value;
  }
}

/** The params with `level` as their log level, unless they name one themselves. */
export function withLogLevel(params: JsonObject | undefined, level: string | undefined): JsonObject | undefined {
  if (level === undefined) return params;
  const meta = isPlainObject(params?._meta) ? params._meta : {};
  if (meta[LOG_LEVEL_META_KEY] !== undefined) return params;
  return withMetaEntry(params, LOG_LEVEL_META_KEY, level);
}
