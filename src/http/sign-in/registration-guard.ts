// Dynamic client registration (RFC 7591) is open to anyone who can reach the gateway, so it is
// guarded before oidc-provider sees it: a rate per client address, a bounded body, public clients
// only, and redirect URIs the MCP authorization spec allows (HTTPS, or http on loopback with any
// port; private-use schemes the operator lists). A registration with only loopback or private-use
// redirect URIs is a native application (RFC 8252): its loopback port may differ at each
// authorization. Refusals are RFC 7591 errors in JSON.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SignInConfig } from '../../config/sign-in.js';
import type { RateLimiter } from '../../limits/rate-limiter.js';
import { isLoopbackRedirect, redirectUriProblem } from '../../signin/redirect-uris.js';
import { readWithin } from './request-body.js';

export interface RegistrationGuardOptions {
  readonly limits: SignInConfig['registration'];
  readonly limiter: RateLimiter;
  /** The client's address (client-address.ts): registrations are counted per address. */
  readonly client: string;
}

/**
 * Answers the request itself when it is refused (true); otherwise leaves the checked metadata as
 * the request's parsed body for oidc-provider and returns false.
 */
export async function guardRegistration(request: IncomingMessage, response: ServerResponse, { limits, limiter, client }: RegistrationGuardOptions): Promise<boolean> {
  const decision = await limiter.hit(client);
  if (!decision.allowed) {
    return refuse(response, 429, 'too_many_requests', `too many registrations from this address; try again in ${decision.retryAfterSeconds} s`, { 'Retry-After': `${decision.retryAfterSeconds}` });
  }
  if (!(request.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) {
    return refuse(response, 400, 'invalid_client_metadata', 'a registration is a JSON object (Content-Type: application/json)');
  }
  const body = await readWithin(request, limits.maxBodyBytes);
  if (!body.ok) return refuse(response, 413, 'invalid_client_metadata', `a registration is at most ${limits.maxBodyBytes} bytes`);
  let metadata: unknown;
  try {
    metadata = JSON.parse(body.bytes.toString('utf8'));
  } catch {
    return refuse(response, 400, 'invalid_client_metadata', 'the registration is not valid JSON');
  }
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return refuse(response, 400, 'invalid_client_metadata', 'a registration is a JSON object');
  const fields = metadata as Record<string, unknown>;
  const method = fields.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none') {
    return refuse(response, 400, 'invalid_client_metadata', `only public clients may register here (token_endpoint_auth_method "none", with PKCE), not "${String(method)}"`);
  }
  const uris = fields.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || !uris.every((uri) => typeof uri === 'string')) {
    return refuse(response, 400, 'invalid_redirect_uri', 'redirect_uris must be a non-empty array of URLs');
  }
  const schemes = new Set(limits.allowedSchemes);
  for (const uri of uris as string[]) {
    const problem = redirectUriProblem(uri, schemes);
    if (problem !== undefined) return refuse(response, 400, 'invalid_redirect_uri', problem);
  }
  const native = (uris as string[]).every((uri) => isLoopbackRedirect(uri) || !/^https?:/i.test(uri));
  // oidc-provider reads an already-read body from here (its body parser's documented fallback).
  (request as IncomingMessage & { body?: unknown }).body = {
    ...fields,
    token_endpoint_auth_method: 'none',
    ...(fields.application_type === undefined && { application_type: native ? 'native' : 'web' }),
  };
  return false;
}

function refuse(response: ServerResponse, status: number, error: string, description: string, headers: Record<string, string> = {}): true {
  response.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers });
  response.end(JSON.stringify({ error, error_description: description }));
  return true;
}
