// The load as deployed MCP clients send it: the official clients, v2 (@modelcontextprotocol/client)
// and v1 (@modelcontextprotocol/sdk). For a 2025 target one Client is one session (its own
// Mcp-Session-Id, initialize, a GET stream), so 50 agents behind one front are 50 sessions, not
// one session with 50 calls in flight. For a 2026 target the v2 Client is pinned to 2026-07-28: it
// probes with server/discover once at connect, then every call is stateless; v1 has no 2026 era.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { closeAll, openInBatches, type BenchClient, type LoadGenerator } from './load.js';
import { checkResult, ECHO_ARGUMENTS, MODERN_VERSION, type Operation } from './operations.js';
import type { Target } from './targets.js';

const CLIENT_INFO = { name: 'switchboard-bench', version: '1.0.0' };
// Far below the SDK's 60 s default: a call that hangs must not hold the run past its phase's time bound for long.
const CALL_TIMEOUT_MS = 10_000;

export const sdkV2Load: LoadGenerator = {
  name: 'sdk-v2',
  supports: (target) => target.endpoint.kind === 'http',
  async open(target, count, operation) {
    const clients = await openInBatches(count, () => connectV2(target, operation));
    return { clients, close: () => closeAll(clients) };
  },
};

export const sdkV1Load: LoadGenerator = {
  name: 'sdk-v1',
  supports: (target) => target.endpoint.kind === 'http' && target.era === '2025',
  async open(target, count, operation) {
    const clients = await openInBatches(count, () => connectV1(target, operation));
    return { clients, close: () => closeAll(clients) };
  },
};

function urlOf(target: Target): URL {
  if (target.endpoint.kind !== 'http') throw new Error(`${target.name} is not an HTTP target`);
  return new URL(target.endpoint.url);
}

const OPTIONS = { timeout: CALL_TIMEOUT_MS };

async function connectV2(target: Target, operation: Operation): Promise<BenchClient> {
  const client = new Client(CLIENT_INFO, target.era === '2026' ? { versionNegotiation: { mode: { pin: MODERN_VERSION } } } : {});
  const transport = new StreamableHTTPClientTransport(urlOf(target));
  await client.connect(transport, OPTIONS);
  const calls: Record<Operation, () => Promise<unknown>> = {
    echo: () => client.callTool({ name: target.tool, arguments: ECHO_ARGUMENTS }, OPTIONS),
    ping: () => client.ping(OPTIONS),
    'tools/list': () => client.listTools(undefined, OPTIONS),
  };
  return caller(operation, calls[operation], async () => {
    // DELETE a 2025 session, as a well-behaved client does, so the server frees it now rather than at its idle timeout.
    if (target.era === '2025') await transport.terminateSession().catch(() => {});
    await client.close();
  });
}

async function connectV1(target: Target, operation: Operation): Promise<BenchClient> {
  const client = new ClientV1(CLIENT_INFO);
  const transport = new TransportV1(urlOf(target));
  await client.connect(transport, OPTIONS);
  const calls: Record<Operation, () => Promise<unknown>> = {
    echo: () => client.callTool({ name: target.tool, arguments: ECHO_ARGUMENTS }, undefined, OPTIONS),
    ping: () => client.ping(OPTIONS),
    'tools/list': () => client.listTools(undefined, OPTIONS),
  };
  return caller(operation, calls[operation], async () => {
    await transport.terminateSession().catch(() => {});
    await client.close();
  });
}

function caller(operation: Operation, run: () => Promise<unknown>, close: () => Promise<void>): BenchClient {
  return {
    async call() {
      checkResult(operation, await run());
    },
    close,
  };
}
