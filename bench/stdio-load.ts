// The light load over stdio: callers that share the one pipe to a stdio server (stdio-peer.ts), as
// a front's shared upstream connection does. 50 callers are 50 requests in flight on that pipe.
import type { BenchClient, ClientGroup } from './load.js';
import { checkResult, requestOf, type Operation } from './operations.js';
import type { StdioPeer } from './stdio-peer.js';

export function openStdioCallers(peer: StdioPeer, tool: string, count: number, operation: Operation): ClientGroup {
  const { method, params } = requestOf(operation, tool);
  const caller: BenchClient = {
    async call() {
      checkResult(operation, await peer.request(method, params));
    },
    close: () => Promise.resolve(),
  };
  // The callers are alike: the pipe, not the caller, holds what state there is.
  return { clients: Array.from({ length: count }, () => caller), close: () => Promise.resolve() };
}
