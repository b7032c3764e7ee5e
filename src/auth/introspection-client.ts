// One RFC 7662 introspection call: the token goes to the provider's introspection endpoint with
// the gateway's client credentials (section 2.1, client_secret_basic) and the provider's answer
// comes back as it is; what the answer means is introspection-verifier.ts. undici's request() on
// the global keep-alive pool, bounded by timeoutMs from the first byte sent to the last byte read.
// Any failure of the endpoint (unreachable, slow, 5xx, refusing our credentials, not JSON) is the
// gateway's problem, never the caller's: IntrospectionUnavailableError, a 503. The one exception is
// a provider's `unsupported_token_type`, which is about the token: TokenRejectedError, a 401. Its message names the
// endpoint, never the token or the secret.
import { request } from 'undici';
import { describeEndpoint } from '../credentials/token-exchange.js';
import { KeysUnavailableError, TokenRejectedError } from './token-verifier.js';
import { closedUnderUs, errorCodeOf, readBounded } from '../support/bounded-answer.js';

/** An answer is a few hundred bytes; more is not an introspection endpoint, and is not read into memory. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface IntrospectionEndpoint {
  readonly endpoint: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly timeoutMs: number;
}

/** The provider's answer (RFC 7662 section 2.2): `active`, and the token's claims when it is. */
export type IntrospectionAnswer = Readonly<Record<string, unknown>> & { readonly active: boolean };

export class IntrospectionUnavailableError extends KeysUnavailableError {
  constructor(endpoint: string, reason: string, cause?: unknown) {
    super(cause, `the introspection endpoint ${endpoint} ${reason}`);
    this.name = 'IntrospectionUnavailableError';
  }
}

export type Introspect = (token: string) => Promise<IntrospectionAnswer>;

export function introspectionClient({ endpoint, clientId, clientSecret, timeoutMs }: IntrospectionEndpoint): Introspect {
  // RFC 6749 2.3.1: id and secret are form-urlencoded before they are joined and base64-encoded.
  const basic = Buffer.from(`${formUrlEncode(clientId)}:${formUrlEncode(clientSecret)}`, 'utf8').toString('base64');
  const headers = { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  const where = describeEndpoint(endpoint);
  const unavailable = (reason: string, cause?: unknown) => new IntrospectionUnavailableError(where, reason, cause);

  return async function introspect(token) {
    const signal = AbortSignal.timeout(timeoutMs);
    const body = new URLSearchParams({ token, token_type_hint: 'access_token' }).toString();
    for (let attempt = 1; ; attempt++) {
      let answer: { readonly statusCode: number; readonly text?: string };
      try {
        const { statusCode, body: stream } = await request(endpoint, { method: 'POST', headers, body, signal });
        if (statusCode === 200 || statusCode === 400) {
          answer = { statusCode, text: await readBounded(stream, MAX_ANSWER_BYTES, () => unavailable(`answered with more than ${MAX_ANSWER_BYTES / 1024} KB, which is not an introspection answer`)) };
        } else {
          // Read and dropped (up to undici's small limit) rather than destroyed, which would
          // surface as an error nobody awaits.
          await stream.dump();
          answer = { statusCode };
        }
      } catch (error) {
        if (error instanceof IntrospectionUnavailableError) throw error;
        if (signal.aborted) throw unavailable(`did not answer within ${timeoutMs} ms`, error);
        // A kept-alive connection the server closed as we reused it fails before any answer;
        // introspection changes nothing at the provider, so it is sent once more.
        if (attempt === 1 && closedUnderUs(error)) continue;
        throw unavailable(`cannot be reached (${errorCodeOf(error) ?? 'network error'})`, error);
      }
      const { statusCode, text } = answer;
      if (statusCode === 401 || statusCode === 403) throw unavailable(`refuses the gateway's client credentials (${statusCode}): check auth.introspection.clientId and clientSecret`);
      if (statusCode === 400 && text !== undefined && oauthError(text) === 'unsupported_token_type') {
        throw new TokenRejectedError('the provider cannot introspect this kind of token (unsupported_token_type)');
      }
      if (statusCode !== 200 || text === undefined) throw unavailable(`answered ${statusCode}`);
      return parseAnswer(text, unavailable);
    }
  };
}

/**
 * The RFC 6749 5.2 error of a 400. Only `unsupported_token_type` is the token's fault (providers
 * answer it for a token they cannot introspect, such as oidc-provider for a JWT); any other 400
 * says our request is wrong, which no client can fix.
 */
function oauthError(text: string): unknown {
  try {
    return (JSON.parse(text) as { error?: unknown } | null)?.error;
  } catch {
    return undefined;
  }
}

function parseAnswer(text: string, unavailable: (reason: string) => Error): IntrospectionAnswer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw unavailable('answered with something that is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || typeof (parsed as { active?: unknown }).active !== 'boolean') {
    throw unavailable('answered without a boolean "active" (RFC 7662 section 2.2)');
  }
  return parsed as IntrospectionAnswer;
}

function formUrlEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}
