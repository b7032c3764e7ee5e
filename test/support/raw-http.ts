// Plain HTTP against the MCP endpoint, for the transport's edges that an SDK client never shows:
// status codes, headers, malformed bodies.

export const MCP_ACCEPT = 'application/json, text/event-stream';

export interface RawResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

export interface RawPostOptions {
  readonly sessionId?: string;
  readonly headers?: Record<string, string>;
}

export async function rawPost(url: string, body: string | object, options: RawPostOptions = {}): Promise<RawResponse> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      accept: MCP_ACCEPT,
      'content-type': 'application/json',
      ...(options.sessionId !== undefined && { 'mcp-session-id': options.sessionId }),
      ...options.headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: await readBody(response) };
}

export async function rawRequest(url: string, method: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  const response = await fetch(url, { method, headers });
  return { status: response.status, headers: response.headers, body: await readBody(response) };
}

/** Opens a session the way a client does (initialize, then initialized) and returns its id. */
export async function openSession(url: string, protocolVersion = '2025-11-25'): Promise<{ sessionId: string; result: Record<string, unknown> }> {
  const init = await rawPost(url, {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw-http-test', version: '1.0.0' } },
  });
  const sessionId = init.headers.get('mcp-session-id');
  if (init.status !== 200 || !sessionId) throw new Error(`initialize failed: ${init.status} ${JSON.stringify(init.body)}`);
  await rawPost(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { sessionId });
  return { sessionId, result: (init.body as { result: Record<string, unknown> }).result };
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
