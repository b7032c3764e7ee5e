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
import { UpstreamRpcError } from './errors.js';
import type { ModernListens } from './modern-listens.js';
import type { JsonObject, UpstreamRequestOptions } from './types.js';

export const LOG_LEVEL_META_KEY = 'io.modelcontextprotocol/logLevel';

export type SendRequest = (method: string, params: JsonObject | undefined, options: UpstreamRequestOptions & { timeoutMs: number }) => Promise<JsonObject>;

export class ModernRequests {
  #logLevel: string | undefined;

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
      default:
        return this.send(method, withLogLevel(params, this.#logLevel), options);
    }
  }

  /** Proves the upstream answers: server/discover, which every modern server implements. */
  ping(timeoutMs: number): Promise<JsonObject> {
    return this.send('server/discover', undefined, { timeoutMs });
  }

  #stringParam(params: JsonObject | undefined, key: string): string {
    const value = params?.[key];
    if (typeof value !== 'string') throw new UpstreamRpcError(this.server, -32602, `"${key}" must be a string`);
    return value;
  }
}

/** The params with `level` as their log level, unless they name one themselves. */
export function withLogLevel(params: JsonObject | undefined, level: string | undefined): JsonObject | undefined {
  if (level === undefined) return params;
  const meta = isObject(params?._meta) ? params._meta : {};
  if (meta[LOG_LEVEL_META_KEY] !== undefined) return params;
  return { ...params, _meta: { ...meta, [LOG_LEVEL_META_KEY]: level } };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
