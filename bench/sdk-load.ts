// The load as deployed MCP clients send it: the official v2 client. For a 2025 target one Client is
// one session (its own Mcp-Session-Id, initialize, a GET stream), so 50 agents behind one gateway are
// 50 sessions, not one session with 50 calls in flight. For the 2026 target the Client is pinned to
// 2026-07-28: it probes with server/discover once at connect, then every call is stateless.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

import { checkEcho, ECHO_ARGUMENTS, MODERN_VERSION } from './echo.js';
import { closeAll, openInBatches, type BenchClient, type LoadGenerator } from './load.js';
import type { Target } from './targets.js';

const CLIENT_INFO = { name: 'switchboard-bench', version: '1.0.0' };
// Far below the SDK's 60 s default: a call that hangs must not hold the run past its phase's time bound for long.
const CALL_TIMEOUT_MS = 10_000;

export const sdkLoad: LoadGenerator = {
  name: 'sdk',
  async open(target, count) {
    const clients = await openInBatches(count, () => connect(target));
    return { clients, close: () => closeAll(clients) };
  },
};

async function connect(target: Target): Promise<BenchClient> {
  const client = new Client(CLIENT_INFO, target.era === '2026' ? { versionNegotiation: { mode: { pin: MODERN_VERSION } } } : {});
  const transport = new StreamableHTTPClientTransport(new URL(target.url));
  await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
  return {
    async callEcho() {
      checkEcho(await client.callTool({ name: target.tool, arguments: ECHO_ARGUMENTS }, { timeout: CALL_TIMEOUT_MS }));
    },
    async close() {
      // DELETE a 2025 session, as a well-behaved client does, so the server frees it now rather than at its idle timeout.
      if (target.era === '2025') await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}
