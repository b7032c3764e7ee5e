// What each configured upstream lists now, for `switchboard lock`: one connection per enabled
// server, made by the gateway's own connection code (stdio or HTTP, either protocol era, the same
// negotiation), every page of tools/list, then closed. The gateway's catalogue fetches the same
// way, so the lock file pins exactly what the gateway will compare.
import type { Config } from '../config/schema.js';
import type { JsonObject } from '../protocol/json.js';
import { fetchAllPages } from '../gateway/catalogue/list-pages.js';
import type { Logger } from '../observe/logger.js';
import { openConnection } from '../upstream/connection.js';
import { upstreamError } from '../upstream/errors.js';

export interface LiveTools {
  /** The tools/list entries of each server that answered, in config order. */
  readonly tools: ReadonlyMap<string, readonly JsonObject[]>;
  /** The servers that could not be listed, with why (the message names the server). */
  readonly failures: readonly { readonly server: string; readonly reason: string }[];
}

export async function listLiveTools(config: Config, logger: Logger): Promise<LiveTools> {
  const servers = Object.entries(config.mcpServers).filter(([, server]) => server.enabled);
  const settled = await Promise.allSettled(
    servers.map(async ([name, server]) => {
      const connection = await openConnection({
        name,
        config: server,
        logger: logger.child({ server: name }),
        handlers: {
          onNotification: () => {},
          // Listing tools asks nothing of a client; an upstream that asks anyway is told no.
          onServerRequest: async (request) => {
            throw upstreamError(name, 'MethodNotFound', request.method);
          },
          onClosed: () => {},
        },
      });
      try {
        if (!connection.info.capabilities.tools) return [];
        return await fetchAllPages(
          { request: (method, params) => connection.request(method, params, { timeoutMs: server.timeoutMs }) },
          'tools/list',
          'tools',
        );
      } finally {
        await connection.close().catch(() => {});
      }
    }),
  );
  const tools = new Map<string, readonly JsonObject[]>();
  const failures: { server: string; reason: string }[] = [];
  settled.forEach((outcome, index) => {
    const [server] = servers[index]!;
    if (outcome.status === 'fulfilled') tools.set(server, outcome.value);
    else failures.push({ server, reason: outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason) });
  });
  return { tools, failures };
}
