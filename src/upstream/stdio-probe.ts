// Which era a stdio server speaks, asked on a sibling process before the real connection starts
// (basic/transports/stdio, "Backward Compatibility"): server/discover first; a DiscoverResult that
// offers 2026-07-28 is a modern server, anything else (an error, silence, an exit: some 2025
// servers stop at any request before initialize) a 2025 one. On a sibling, so that whatever the
// probe does to a 2025 server happens to a process that is thrown away; the verdict goes to the
// SDK as its `prior`, and the real connection starts once, in the right era.
import type { PriorDiscovery } from '@modelcontextprotocol/client';
import { discoverRequest, LEGACY, PROBE_ID, verdictOf } from './era-probe.js';
import { LeanStdioTransport, type StdioSpawn } from './stdio-transport.js';

export async function probeStdioEra(spec: Omit<StdioSpawn, 'stderr'>, capabilities: Readonly<Record<string, unknown>>, timeoutMs: number): Promise<PriorDiscovery> {
  const probe = new LeanStdioTransport({ ...spec, stderr: 'ignore' });
  const legacy = LEGACY;
  try {
    return await new Promise<PriorDiscovery>((resolve) => {
      const timer = setTimeout(() => resolve(legacy), timeoutMs);
      const done = (verdict: PriorDiscovery) => {
        clearTimeout(timer);
        resolve(verdict);
      };
      probe.onclose = () => done(legacy);
      probe.onerror = () => {};
      probe.onmessage = (message) => {
        if (!('id' in message) || message.id !== PROBE_ID) return;
        // An answer the SDK would negotiate further is, from a sibling, a 2025 server like any other.
        done(verdictOf(message) ?? legacy);
      };
      probe.start().then(
        () =>
          probe
            .send(discoverRequest(capabilities))
            .catch(() => done(legacy)),
        // The command does not start: the real connection will say why.
        () => done(legacy),
      );
    });
  } finally {
    // The verdict is in: the sibling goes at once (a 2025 server may ignore its stdin closing), and
    // before the real server starts, so that only one process of the server is ever left running.
    await probe.kill().catch(() => {});
  }
}
