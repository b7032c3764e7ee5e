// Ending an upstream HTTP session that a gateway session opened (`isolation: session`): the
// transport spec (2025-11-25, basic/transports) says a client that no longer needs a session
// SHOULD send DELETE with its Mcp-Session-Id, so the upstream can free what it keeps for it. The
// connection that made the session may be gone (closed when idle, or on another replica): the
// DELETE needs only the URL, the headers and the id, so it is sent on its own request.
import { request } from 'undici';

/**
 * How long one DELETE may take. A courtesy to the upstream: it must not hold up a client's own
 * DELETE, an expiry sweep or a shutdown, so an upstream that does not answer in time is left to
 * expire the session itself.
 */
export const END_UPSTREAM_SESSION_TIMEOUT_MS = 1_000;

export interface UpstreamSessionToEnd {
  readonly url: string;
  /** The server's configured headers, with the caller's own laid over them (per-user credentials). */
  readonly headers: Readonly<Record<string, string>>;
  readonly sessionId: string;
  /** The version the connection negotiated, when known (the spec asks for it on every later request). */
  readonly protocolVersion?: string;
}

/** Sends the DELETE; resolves with the upstream's status, rejects when it cannot be reached in time. */
export async function endUpstreamSession({ url, headers, sessionId, protocolVersion }: UpstreamSessionToEnd): Promise<number> {
  const { statusCode, body } = await request(url, {
    method: 'DELETE',
    headers: {
      ...headers,
      'mcp-session-id': sessionId,
      ...(protocolVersion !== undefined && { 'mcp-protocol-version': protocolVersion }),
    },
    signal: AbortSignal.timeout(END_UPSTREAM_SESSION_TIMEOUT_MS),
  });
  await body.dump();
  return statusCode;
}
