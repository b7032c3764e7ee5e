// What a token endpoint's answer means (RFC 8693 section 2.2, RFC 6749 section 5). Pure, so every
// shape of answer is tested without a server. Three outcomes, and only three: a token, a refusal
// (the provider looked at the request and said no: the caller or the config must change), or the
// endpoint being unavailable (an outage or nonsense: trying again later may work). A message says
// what was wrong with the answer, never what the answer held.
import { CredentialRefusedError, CredentialUnavailableError } from './errors.js';

/**
 * RFC 6749 recommends expires_in but does not require it. Without it the lifetime is unknown; five
 * minutes is short enough that a token the provider meant to live less is not presented for long,
 * and long enough that a caller's burst of calls costs one exchange.
 */
export const DEFAULT_LIFETIME_MS = 5 * 60_000;

/** A description is for a person to read: bounded, on one line. */
const MAX_DESCRIPTION_CHARS = 300;

export interface IssuedToken {
  readonly accessToken: string;
  /** From expires_in, or DEFAULT_LIFETIME_MS when the provider did not say. */
  readonly lifetimeMs: number;
}

export interface TokenAnswer {
  readonly statusCode: number;
  readonly body: string;
}

/**
 * `endpoint` is how messages name the token endpoint (without credentials or query); `secrets` are
 * what was sent (the subject token, the client's secret or assertion), taken out of a description
 * that echoes them before it is shortened, so no part of one survives.
 */
export function readTokenAnswer(server: string, endpoint: string, { statusCode, body }: TokenAnswer, secrets: readonly (string | undefined)[] = []): IssuedToken {
  const unavailable = (reason: string) => new CredentialUnavailableError(server, `its token endpoint ${endpoint} ${reason}`);
  if (statusCode >= 200 && statusCode < 300) {
    const answer = jsonObject(body);
    if (answer === undefined) throw unavailable(`answered ${statusCode} with a body that is not a JSON object`);
    return issuedToken(answer, (reason) => unavailable(`answered ${statusCode} ${reason}`));
  }
  // 408 and 429 are "not now", whatever the body says: an outage as far as the caller can tell.
  if (statusCode >= 400 && statusCode < 500 && statusCode !== 408 && statusCode !== 429) {
    const answer = jsonObject(body);
    // RFC 6749 5.2 says 400 (401 for invalid_client); some providers use 403 for access_denied.
    // An error code is what makes it the provider's word rather than a proxy's or a wrong URL's.
    if (answer && typeof answer.error === 'string' && answer.error !== '') {
      const description = typeof answer.error_description === 'string' ? oneLine(withoutSecrets(answer.error_description, secrets), MAX_DESCRIPTION_CHARS) : undefined;
      throw new CredentialRefusedError(server, oneLine(withoutSecrets(answer.error, secrets), 64), description);
    }
    throw unavailable(`answered ${statusCode} without an OAuth error (is tokenEndpoint the right URL?)`);
  }
  throw unavailable(`answered ${statusCode}`);
}

function issuedToken(answer: Record<string, unknown>, invalid: (reason: string) => Error): IssuedToken {
  const { access_token: accessToken, token_type: tokenType, expires_in: expiresIn } = answer;
  if (typeof accessToken !== 'string' || accessToken === '') throw invalid('without an access_token');
  if (typeof tokenType !== 'string') throw invalid('without a token_type');
  // N_A is what RFC 8693 2.2.1 has a provider say when the issued token is not an OAuth access token
  // (a JWT asked for by requestedTokenType): the upstream still takes it as a bearer token. Any other
  // type (DPoP, MAC) needs a proof the gateway does not make.
  const type = tokenType.toLowerCase();
  if (type !== 'bearer' && type !== 'n_a') throw invalid(`with token_type "${oneLine(tokenType, 32)}", which the gateway cannot present (it sends Bearer tokens)`);
  return { accessToken, lifetimeMs: lifetime(expiresIn, invalid) };
}

function lifetime(expiresIn: unknown, invalid: (reason: string) => Error): number {
  if (expiresIn === undefined || expiresIn === null) return DEFAULT_LIFETIME_MS;
  // Some providers send the number as a string ("3600"); the meaning is not in doubt.
  const seconds = typeof expiresIn === 'string' && /^\d+$/.test(expiresIn) ? Number(expiresIn) : expiresIn;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) throw invalid('with an expires_in that is not a number of seconds');
  return seconds * 1000;
}

function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function withoutSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  return secrets.reduce<string>((clean, secret) => (secret ? clean.replaceAll(secret, '[redacted]') : clean), text);
}

/** Control characters out, length bounded: a provider's text goes into an error a person reads. */
function oneLine(text: string, max: number): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  const clean = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}
