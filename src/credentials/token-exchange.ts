// One RFC 8693 token exchange: the caller's access token goes to the identity provider's token
// endpoint and a token made for the upstream comes back. undici's request() on the global keep-alive
// pool (as the HTTP upstreams use it), bounded by timeoutMs from the first byte sent to the last byte
// read. What the answer means is token-response.ts; how the client authenticates is
// client-authentication.ts. The subject token, the client's secret or assertion and the issued
// token travel in the request and the answer only: no message here holds any of them.
import { request } from 'undici';
import type { TokenExchangeConfig } from '../config/credentials.js';
import { ClientKeyError, clientAuthentication } from './client-authentication.js';
import { CredentialUnavailableError } from './errors.js';
import { readTokenAnswer, type IssuedToken, type TokenAnswer } from './token-response.js';
import { closedUnderUs, readBounded } from '../support/bounded-answer.js';

export const GRANT_TYPE_TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const TOKEN_TYPE_ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';

/** A token answer is a few KB at most; more is not a token endpoint, and is not read into memory. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface TokenExchanger {
  /** Throws CredentialRefusedError or CredentialUnavailableError (errors.ts). */
  exchange(subjectToken: string): Promise<IssuedToken>;
}

/** Throws at once when the config lacks what its client authentication needs. */
export function tokenExchanger(server: string, config: TokenExchangeConfig): TokenExchanger {
  const authenticate = clientAuthentication(config);
  const endpoint = describeEndpoint(config.tokenEndpoint);
  const unavailable = (reason: string) => new CredentialUnavailableError(server, `its token endpoint ${endpoint} ${reason}`);
  // What the exchange asks for is the same on every request; only the subject token changes.
  const asked: Record<string, string> = {
    grant_type: GRANT_TYPE_TOKEN_EXCHANGE,
    subject_token_type: TOKEN_TYPE_ACCESS_TOKEN,
    requested_token_type: config.requestedTokenType,
    ...(config.audience !== undefined && { audience: config.audience }),
    ...(config.resource !== undefined && { resource: config.resource }),
    ...(config.scopes.length > 0 && { scope: config.scopes.join(' ') }),
  };

  /** One request; the caller decides what its failure means. */
  async function send(subjectToken: string, signal: AbortSignal): Promise<{ answer: TokenAnswer; assertion: string | undefined }> {
    let client;
    try {
      client = await authenticate();
    } catch (error) {
      if (error instanceof ClientKeyError) throw new CredentialUnavailableError(server, error.message);
      throw error;
    }
    const form = new URLSearchParams({ ...asked, subject_token: subjectToken, ...client.fields }).toString();
    const { statusCode, body } = await request(config.tokenEndpoint, {
      method: 'POST',
      headers: { ...client.headers, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form,
      signal,
    });
    return { answer: { statusCode, body: await readBounded(body, MAX_ANSWER_BYTES, () => unavailable(`answered with more than ${MAX_ANSWER_BYTES / 1024} KB, which is not a token answer`)) }, assertion: client.fields.client_assertion };
  }

  return {
    async exchange(subjectToken) {
      const signal = AbortSignal.timeout(config.timeoutMs);
      for (let attempt = 1; ; attempt++) {
        let sent;
        try {
          sent = await send(subjectToken, signal);
        } catch (error) {
          if (error instanceof CredentialUnavailableError) throw error;
          if (signal.aborted) throw unavailable(`did not answer within ${config.timeoutMs} ms`);
          // A kept-alive connection the server closed as we reused it (its idle timeout, a load
          // balancer's) fails before any answer. An exchange has no effect worth guarding, so it is
          // sent once more, on a new connection and with a new assertion, within the same time bound.
          if (attempt === 1 && closedUnderUs(error)) continue;
          throw unavailable(`cannot be reached (${networkReason(error)})`);
        }
        return readTokenAnswer(server, endpoint, sent.answer, [subjectToken, config.clientSecret, sent.assertion]);
      }
    },
  };
}

/** The URL for messages: without user info or query, where a careless config might put a secret. */
export function describeEndpoint(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(an invalid URL)';
  }
}

/** undici's own codes, in words; the system's (ECONNREFUSED, ENOTFOUND, ...) are known as they are. */
const UNDICI_REASONS: Readonly<Record<string, string>> = {
  UND_ERR_SOCKET: 'the connection was closed before the answer ended',
  UND_ERR_CONNECT_TIMEOUT: 'connecting timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no answer headers in time',
  UND_ERR_BODY_TIMEOUT: 'the answer stopped arriving',
};

/** Why a connection failed, as the system or undici says it. */
function networkReason(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as Error & { code?: unknown }).code;
    if (typeof code === 'string') return UNDICI_REASONS[code] ?? code;
    if (error.cause instanceof Error) return networkReason(error.cause);
    return error.message;
  }
  return String(error);
}
