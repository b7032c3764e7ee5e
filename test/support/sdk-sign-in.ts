// An official SDK client (v1 or v2) that starts with nothing but the MCP endpoint's URL and signs in
// as a desktop client does: the SDK's auth() discovers, registers and builds the authorization URL;
// the person's part (the browser) is the test's `signIn`; the code comes back to a loopback
// callback; the SDK exchanges it and the client connects with the token.
import { Client as ClientV2, type ClientCapabilities, StreamableHTTPClientTransport as HttpTransportV2, UnauthorizedError as UnauthorizedV2 } from '@modelcontextprotocol/client';
import { UnauthorizedError as UnauthorizedV1 } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { LoopbackCallback } from './loopback-callback.js';
import type { SdkGeneration } from './mcp-clients.js';
import type { TestOAuthClientProvider } from './oauth-client-provider.js';

const CLIENT_INFO = { name: 'switchboard-sign-in-tests', version: '1.0.0' };

export interface SignInClientOptions {
  readonly generation: SdkGeneration;
  /** The MCP endpoint: all the client is told. */
  readonly url: string;
  readonly provider: TestOAuthClientProvider;
  /** Where the browser comes back; its redirectUrl must be the provider's. */
  readonly callback: LoopbackCallback;
  /** The person's part, given the authorization URL: drive the browser until it is sent back. */
  readonly signIn: (authorizationUrl: URL) => Promise<void>;
  /** v2 only: pin the client to this revision (a 2026 client) rather than a 2025 session. */
  readonly revision?: '2026-07-28';
  /** v2 only: what the client declares (e.g. URL elicitation), and its handlers, set before it connects. */
  readonly capabilities?: ClientCapabilities;
  readonly prepare?: (client: ClientV2) => void;
  /** v2 only: the client's fetch, e.g. one that reaches one replica behind the public address. */
  readonly fetch?: typeof fetch;
}

export interface SignedInClient {
  readonly generation: SdkGeneration;
  /** The MCP session's id (2025 sessions), as the transport holds it now. */
  readonly sessionId: string | undefined;
  /** The v2 SDK client itself, for what the methods below do not cover. */
  readonly sdk?: ClientV2;
  listToolNames(): Promise<string[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<{ content?: unknown; isError?: boolean }>;
  close(): Promise<void>;
}

/** Thrown when the authorization server sent the browser back with an error. */
export class AuthorizationRedirectError extends Error {
  constructor(readonly params: URLSearchParams) {
    super(`the authorization server answered ${params.get('error')}: ${params.get('error_description') ?? ''}`);
  }
}

export async function connectWithSignIn(options: SignInClientOptions): Promise<SignedInClient> {
  const first = connection(options);
  try {
    return await first.connect();
  } catch (error) {
    if (!(error instanceof UnauthorizedV2 || error instanceof UnauthorizedV1)) throw error;
  }
  const authorizationUrl = options.provider.authorizationUrls.at(-1);
  if (authorizationUrl === undefined) throw new Error('the SDK stopped at 401 without asking to open an authorization URL');
  const callback = options.callback.next();
  callback.catch(() => {});
  await options.signIn(authorizationUrl);
  const params = await callback;
  if (params.has('error')) throw new AuthorizationRedirectError(params);
  await first.finishAuth(params);
  return connection(options).connect();
}

interface Connection {
  connect(): Promise<SignedInClient>;
  finishAuth(params: URLSearchParams): Promise<void>;
}

function connection({ generation, url, provider, revision, capabilities, prepare, fetch }: SignInClientOptions): Connection {
  if (revision !== undefined && generation !== 'v2') throw new Error(`connectWithSignIn: only the v2 client speaks ${revision}`);
  if (generation === 'v2') {
    const transport = new HttpTransportV2(new URL(url), { authProvider: provider, ...(fetch !== undefined && { fetch }) });
    const client = new ClientV2(CLIENT_INFO, {
      ...(revision !== undefined && { versionNegotiation: { mode: { pin: revision } } }),
      ...(capabilities !== undefined && { capabilities }),
    });
    prepare?.(client);
    return {
      connect: async () => {
        await client.connect(transport);
        return {
          generation,
          sdk: client,
          get sessionId() {
            return transport.sessionId;
          },
          listToolNames: async () => (await client.listTools()).tools.map((tool) => tool.name),
          callTool: (name, args) => client.callTool({ name, arguments: args }),
          close: async () => {
            await transport.terminateSession().catch(() => {});
            await client.close();
          },
        };
      },
      // v2 reads `code` and `iss` (RFC 9207) from the callback's query.
      finishAuth: (params) => transport.finishAuth(params),
    };
  }
  const transport = new HttpTransportV1(new URL(url), { authProvider: provider });
  const client = new ClientV1(CLIENT_INFO);
  return {
    connect: async () => {
      await client.connect(transport);
      return {
        generation,
        get sessionId() {
          return transport.sessionId;
        },
        listToolNames: async () => (await client.listTools()).tools.map((tool) => tool.name),
        callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as { content?: unknown; isError?: boolean },
        close: async () => {
          await transport.terminateSession().catch(() => {});
          await client.close();
        },
      };
    },
    finishAuth: (params) => transport.finishAuth(params.get('code') ?? ''),
  };
}
