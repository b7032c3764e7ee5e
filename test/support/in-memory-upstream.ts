// Upstreams that live in the test's own process: a real SDK server (@modelcontextprotocol/server)
// joined to the real gateway by the SDK's in-memory transport, in place of a stdio child
// (src/upstream/supplied-transports.ts). A gateway test with these starts no process and opens no
// socket to its upstreams, so it belongs to the quick tier (`npm run test:unit`).
import { InMemoryTransport, type McpServer } from '@modelcontextprotocol/server';
import type { SuppliedTransports } from '../../src/upstream/supplied-transports.js';

/** Builds one server: the gateway asks for a fresh one on each connection, as a restarted child is. */
export type InMemoryServerFactory = () => McpServer;

export class InMemoryUpstreams {
  readonly #factories: ReadonlyMap<string, InMemoryServerFactory>;
  readonly #live = new Map<string, McpServer>();

  constructor(factories: Readonly<Record<string, InMemoryServerFactory>>) {
    this.#factories = new Map(Object.entries(factories));
  }

  /**
   * The gateway config's mcpServers entries: stdio ones, since the in-memory transport stands in for
   * a child's pipes. The command is never run; its name says why, should one ever be.
   */
  get mcpServers(): Record<string, { command: string }> {
    return Object.fromEntries([...this.#factories.keys()].map((name) => [name, { command: `in-memory-upstream-${name}` }]));
  }

  /** For runGateway's upstreamTransports: a server of ours for our names, the configured kind for others. */
  readonly transports: SuppliedTransports = (name) => {
    const factory = this.#factories.get(name);
    if (!factory) return undefined;
    const [gatewaySide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = factory();
    this.#live.set(name, server);
    // Messages sent before the server is connected wait in the pair's queue, so no need to await;
    // a failure rethrown here is an unhandled rejection, which fails the test run loudly.
    server.connect(serverSide).catch((error: unknown) => {
      throw new Error(`in-memory upstream ${name} could not connect`, { cause: error });
    });
    return gatewaySide;
  };

  /** The server on the gateway's current connection to `name`. */
  live(name: string): McpServer {
    const server = this.#live.get(name);
    if (!server) throw new Error(`in-memory upstream ${name} has no connection yet`);
    return server;
  }
}
