// The official MCP clients, connected the way deployed clients connect: v2 (@modelcontextprotocol/
// client) and v1 (@modelcontextprotocol/sdk, whose StreamableHTTPClientTransport most clients use).
import { Client as ClientV2, StreamableHTTPClientTransport as HttpTransportV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { StdioUpstream } from './upstreams.js';

export type SdkGeneration = 'v1' | 'v2';

/** The calls the tests make, common to both SDK generations. */
export interface TestClient {
  readonly generation: SdkGeneration;
  request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  readonly sessionId: string | undefined;
  close(): Promise<void>;
}

const CLIENT_INFO = { name: 'switchboard-tests', version: '1.0.0' };
const passThrough = {
  '~standard': {
    version: 1 as const,
    vendor: 'tests',
    validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
  },
};

export async function connectV2(url: string): Promise<TestClient> {
  const client = new ClientV2(CLIENT_INFO);
  const transport = new HttpTransportV2(new URL(url));
  await client.connect(transport);
  return {
    generation: 'v2',
    request: async (method, params) =>
      (await client.request({ method, ...(params && { params }) }, passThrough)) as Record<string, unknown>,
    get sessionId() {
      return transport.sessionId;
    },
    close: async () => {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}

export async function connectV1(url: string): Promise<TestClient> {
  const client = new ClientV1(CLIENT_INFO);
  const transport = new HttpTransportV1(new URL(url));
  await client.connect(transport);
  return {
    generation: 'v1',
    // v1 takes a zod schema; a passthrough object schema keeps every field of the result.
    request: async (method, params) => {
      const { z } = await import('zod');
      return client.request({ method, ...(params && { params }) } as never, z.looseObject({})) as Promise<Record<string, unknown>>;
    },
    get sessionId() {
      return transport.sessionId;
    },
    close: async () => {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}

export function connect(generation: SdkGeneration, url: string): Promise<TestClient> {
  return generation === 'v1' ? connectV1(url) : connectV2(url);
}

/**
 * The capabilities the gateway declares to its upstreams (it relays these requests to its
 * clients): a direct client declares the same, so both see the same capability-dependent tools.
 */
const GATEWAY_AS_CLIENT_CAPABILITIES = {
  sampling: {},
  elicitation: { form: {}, url: {} },
  roots: { listChanged: true },
  extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
};

export interface DirectOptions {
  /** Negotiate the era (server/discover first), as the gateway does; needed for a modern-only upstream. */
  readonly negotiate?: boolean;
}

/** A client straight to an upstream, to compare what the gateway says with what the upstream says. */
export async function connectDirect(upstream: StdioUpstream | { url: string }, options: DirectOptions = {}): Promise<TestClient> {
  const clientOptions = {
    capabilities: GATEWAY_AS_CLIENT_CAPABILITIES,
    ...(options.negotiate === true && { versionNegotiation: { mode: 'auto' as const } }),
  };
  if ('url' in upstream) {
    const client = new ClientV2(CLIENT_INFO, clientOptions);
    const transport = new HttpTransportV2(new URL(upstream.url));
    await client.connect(transport);
    return {
      generation: 'v2',
      request: async (method, params) =>
        (await client.request({ method, ...(params && { params }) }, passThrough)) as Record<string, unknown>,
      sessionId: undefined,
      close: async () => {
        await transport.terminateSession().catch(() => {});
        await client.close();
      },
    };
  }
  const client = new ClientV2(CLIENT_INFO, clientOptions);
  await client.connect(
    new StdioClientTransport({ command: upstream.command, args: upstream.args, env: upstream.env, stderr: 'ignore' }),
  );
  return {
    generation: 'v2',
    request: async (method, params) =>
      (await client.request({ method, ...(params && { params }) }, passThrough)) as Record<string, unknown>,
    sessionId: undefined,
    close: () => client.close(),
  };
}
