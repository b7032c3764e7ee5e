// A 2025 Streamable HTTP upstream in the test's own process that records the DELETEs it receives,
// so a test can say which upstream sessions the gateway ended, and with which headers.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { getRequestListener } from '@hono/node-server';
import { McpServer, WebStandardStreamableHTTPServerTransport, isInitializeRequest } from '@modelcontextprotocol/server';

export interface UpstreamDelete {
  readonly sessionId: string | null;
  readonly headers: Record<string, string>;
  /** What the upstream answered: 200 for a session it had, 404 for one it did not. */
  readonly status: number;
}

export interface RecordingUpstream {
  readonly url: string;
  /** Every DELETE so far, in order. */
  readonly deletes: UpstreamDelete[];
  /** Ids of the upstream sessions still open. */
  readonly open: ReadonlySet<string>;
  stop(): Promise<void>;
}

/** One tool, `session`: answers the upstream session id its request came on. */
function buildServer(): McpServer {
  const server = new McpServer({ name: 'recording', version: '1.0.0' });
  server.registerTool('session', { description: 'The upstream session id of this request' }, (ctx) => ({
    content: [{ type: 'text', text: ctx.http?.req?.headers.get('mcp-session-id') ?? '' }],
  }));
  return server;
}

export async function startRecordingUpstream(): Promise<RecordingUpstream> {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const deletes: UpstreamDelete[] = [];

  async function handle(request: Request): Promise<Response> {
    const sessionId = request.headers.get('mcp-session-id');
    const transport = sessionId === null ? undefined : sessions.get(sessionId);
    let response: Response;
    if (transport) response = await transport.handleRequest(request);
    else if (sessionId !== null) response = Response.json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }, { status: 404 });
    else {
      const body: unknown = request.method === 'POST' ? await request.json() : undefined;
      if (!isInitializeRequest(body)) return Response.json({ jsonrpc: '2.0', error: { code: -32000, message: 'Mcp-Session-Id required' }, id: null }, { status: 400 });
      const fresh = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, fresh),
        onsessionclosed: (id) => void sessions.delete(id),
      });
      await buildServer().connect(fresh);
      response = await fresh.handleRequest(request, { parsedBody: body });
    }
    if (request.method === 'DELETE') deletes.push({ sessionId, headers: Object.fromEntries(request.headers.entries()), status: response.status });
    return response;
  }

  const server = createServer(getRequestListener(handle, { overrideGlobalObjects: false }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    deletes,
    get open() {
      return new Set(sessions.keys());
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
