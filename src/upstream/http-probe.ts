// Which era a Streamable HTTP server speaks, asked with one plain POST of server/discover before
// the real connection starts, so that the connection can be made on our lean transport
// (http-transport.ts) in its era's mode. The verdict goes to the SDK as its `prior`, which then
// neither probes again nor changes its handshake.
//
// Only a clear answer is a verdict. Anything else (the server cannot be reached, wants
// authorization, fails with 5xx, answers with something unusable) is left to the SDK's own probe
// on its own transport, exactly as before this probe existed, so its errors and their meaning for
// the supervisor (and for `transport: auto`, which then tries the legacy HTTP+SSE transport) are
// unchanged; once connected, a 2026 server moves to the lean transport all the same (connection.ts).
// A probe that times out is the one exception: the SDK would only wait as long again.
import { request } from 'undici';
import { SdkError, SdkErrorCode, type JSONRPCMessage, type PriorDiscovery } from '@modelcontextprotocol/client';
import { deliverJson, lowerCased, mediaType, readEventStream, type ResponseBody } from './http-body.js';
import { discoverRequest, LEGACY, MODERN_VERSION, PROBE_ID, verdictOf } from './era-probe.js';

export interface HttpProbeTarget {
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
}

/** `undefined`: no verdict, the SDK negotiates. */
export async function probeHttpEra(target: HttpProbeTarget, capabilities: Readonly<Record<string, unknown>>, timeoutMs: number): Promise<PriorDiscovery | undefined> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const { statusCode, headers, body } = await request(target.url, {
      method: 'POST',
      headers: {
        ...lowerCased(target.headers),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        // What the SDK's probe sends (its body-derived 2026 headers), so a server sees the same probe.
        'mcp-protocol-version': MODERN_VERSION,
        'mcp-method': 'server/discover',
      },
      body: JSON.stringify(discoverRequest(capabilities)),
      signal,
    });
    try {
      if (statusCode >= 200 && statusCode < 300) {
        const answer = await answerOf(body, mediaType(headers['content-type']));
        return answer && verdictOf(answer);
      }
      const text = await body.text();
      // 401/403: credentials; 5xx: the server is in trouble, not of an era. The SDK says which.
      if (statusCode === 401 || statusCode === 403 || statusCode >= 500) return undefined;
      // Any other refusal (400, 404, 405: a 2025 server or one that predates Streamable HTTP) is
      // no modern evidence, unless its body is a JSON-RPC error the SDK would negotiate on.
      const error = errorBody(text);
      return error && verdictOf(error) === undefined ? undefined : LEGACY;
    } finally {
      // A body left unread (an answer of another media type, a web page) errors when destroyed;
      // with no listener that error would end the process.
      body.on('error', () => {});
      body.destroy();
    }
  } catch (error) {
    if (!signal.aborted) return undefined;
    throw new SdkError(SdkErrorCode.RequestTimeout, `Version negotiation probe timed out after ${timeoutMs}ms`, { timeout: timeoutMs }, { cause: error });
  }
}

/** The probe's answer from a 2xx body; undefined when there is none to read. */
async function answerOf(body: ResponseBody, type: string | undefined): Promise<JSONRPCMessage | undefined> {
  let answer: JSONRPCMessage | undefined;
  const sink = {
    message: (message: JSONRPCMessage) => {
      if ('id' in message && message.id === PROBE_ID && !('method' in message)) answer ??= message;
    },
    error: () => {},
  };
  try {
    if (type === 'application/json') deliverJson(await body.text(), sink);
    else if (type === 'text/event-stream') {
      // The answer may be followed by nothing for a while: stop reading once it is in.
      await new Promise<void>((resolve, reject) => {
        readEventStream(body, {
          ...sink,
          message: (message) => {
            sink.message(message);
            if (answer) resolve();
          },
        }).then(resolve, reject);
      });
    }
  } catch {
    return undefined;
  }
  return answer;
}

function errorBody(text: string): JSONRPCMessage | undefined {
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown } };
    return typeof parsed.error?.code === 'number' ? ({ jsonrpc: '2.0', id: PROBE_ID, error: parsed.error } as JSONRPCMessage) : undefined;
  } catch {
    return undefined;
  }
}
