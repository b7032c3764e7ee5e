// Sign-in mode's HTTP: the authorization server's endpoints (/oauth/*, its metadata under both
// well-known names), the person's two browser steps (the interaction page, the broker callback) and
// the registration guard. A node:http listener in front of the Hono app, because oidc-provider is a
// Koa application that serves node's request and response itself; every request still gets an id
// and an access line like any other.
import { clientAddressOf } from '../client-address.js';
import { TrustedProxies } from '../trusted-proxies.js';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { BROKER_CALLBACK_PATH } from '../../config/sign-in.js';
import type { Logger } from '../../observe/logger.js';
import type { RateLimiter } from '../../limits/rate-limiter.js';
import { INTERACTION_PATH, ROUTES } from '../../signin/paths.js';
import type { SignIn } from '../../signin/sign-in.js';

type Provider = SignIn['provider'];
import { SignInRefusedError, TeamProviderError } from '../../signin/team-provider.js';
import type { RequestRecorder } from '../middleware/observe-requests.js';
import type { RateLimitCheck } from '../middleware/rate-limit.js';
import type { Refusal, RequestHead } from '../request-head.js';
import { REQUEST_ID_HEADER, requestIdFrom } from '../middleware/request-id.js';
import { pathOf } from '../fast-path/post-listener.js';
import { consentPage, errorPage, type RenderedPage } from './pages.js';
import { pageHeaders } from './page-shell.js';
import { guardRegistration } from './registration-guard.js';
import { readFormWithin } from './request-body.js';

export interface SignInListenerOptions {
  readonly signIn: SignIn;
  readonly recorder: RequestRecorder;
  readonly logger: Logger;
  /** Registrations per client address (auth.signIn.registration.perMinutePerAddress). */
  readonly registrations: RateLimiter;
  /**
   * `limits.requestsPerMinute` per client address, when set, for authorization requests: each
   * stores an interaction for ten minutes, whoever sends it.
   */
  readonly rateLimit?: RateLimitCheck;
  /** server.trustedProxies: who is believed about the client's address; default none. */
  readonly trustedProxies?: TrustedProxies;
}

const METADATA_PATHS = new Set(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']);
const INTERACTION = new RegExp(`^${INTERACTION_PATH}/([A-Za-z0-9_-]{1,64})(/consent)?$`);
const CONSENT_FORM_BYTES = 4_096;

export function isSignInPath(path: string): boolean {
  return path.startsWith('/oauth/') || METADATA_PATHS.has(path);
}

export function signInListener(options: SignInListenerOptions, next: RequestListener): RequestListener {
  const handlers = new WeakMap<Provider, RequestListener>();
  const handlerOf = (provider: Provider): RequestListener => {
    let handler = handlers.get(provider);
    if (handler === undefined) {
      handler = provider.callback() as RequestListener;
      handlers.set(provider, handler);
    }
    return handler;
  };
  const issuer = new URL(options.signIn.issuer);

  return (request, response) => {
    const path = pathOf(request.url ?? '/');
    if (!isSignInPath(path)) return next(request, response);
    const startedAt = performance.now();
    const requestId = requestIdFrom(request.headers['x-request-id'] as string | undefined);
    response.setHeader(REQUEST_ID_HEADER, requestId);
    response.once('finish', () =>
      options.recorder.record({ requestId, path, method: request.method ?? 'GET', status: response.statusCode, streamed: false, sessionId: undefined, startedAt, span: undefined }),
    );
    // oidc-provider builds its URLs from the request's scheme and host (provider.proxy): they are
    // the issuer's, whatever the ingress in front wrote or did not write.
    request.headers['x-forwarded-proto'] = issuer.protocol.slice(0, -1);
    request.headers['x-forwarded-host'] = issuer.host;
    limited(request, path)
      .then((refusal) => (refusal ? refuseOver(response, refusal) : serve(request, response, path)))
      .catch((error: unknown) => {
        options.logger.error({ err: error, requestId, path }, 'sign-in request failed');
        if (!response.headersSent) sendPage(response, 500, errorPage('server_error', 'Something went wrong on the gateway. Try again from your MCP client.'));
        else response.destroy();
      });
  };

  /** Only the authorization endpoint is counted: it is the one that stores state for anyone who asks. */
  async function limited(request: IncomingMessage, path: string): Promise<Refusal | undefined> {
    if (options.rateLimit === undefined || !isAuthorizationPath(path)) return undefined;
    const head: RequestHead = {
      method: request.method ?? 'GET',
      path,
      header: (name) => {
        const value = request.headers[name];
        return Array.isArray(value) ? value.join(', ') : value;
      },
      requestId: undefined,
      clientAddress: () => clientAddressOf(request, options.trustedProxies ?? TrustedProxies.none),
      bodyUnread: () => false,
    };
    return options.rateLimit(head, undefined);
  }

  async function serve(request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
    const { signIn } = options;
    const provider = signIn.provider;
    if (METADATA_PATHS.has(path)) {
      // RFC 8414's name and OpenID's, one document.
      request.url = '/.well-known/openid-configuration';
      return handlerOf(provider)(request, response);
    }
    if (path === BROKER_CALLBACK_PATH && request.method === 'GET') return callback(request, response);
    const interaction = INTERACTION.exec(path);
    if (interaction) return interactionStep(request, response, provider, interaction[1]!, interaction[2] !== undefined);
    if (isRegistrationPath(path) && request.method === 'POST') {
      const client = clientAddressOf(request, options.trustedProxies ?? TrustedProxies.none);
      const refusal = await guardRegistration(request, response, { limits: signIn.registrationLimits, limiter: options.registrations, client });
      if (refusal) return;
    }
    return handlerOf(provider)(request, response);
  }

  async function callback(request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      const { returnTo } = await options.signIn.finishSignIn(new URL(request.url ?? '/', issuer));
      redirect(response, returnTo);
    } catch (error) {
      if (error instanceof SignInRefusedError) return sendPage(response, 400, errorPage('invalid_request', error.message));
      if (error instanceof TeamProviderError) {
        options.logger.warn({ err: error }, 'sign-in: the identity provider cannot be reached');
        return sendPage(response, 502, errorPage('temporarily_unavailable', `${error.message}. Try again in a moment.`));
      }
      throw error;
    }
  }

  async function interactionStep(request: IncomingMessage, response: ServerResponse, provider: Provider, uid: string, consentForm: boolean): Promise<void> {
    const { signIn } = options;
    let details;
    try {
      details = await provider.interactionDetails(request, response);
    } catch {
      // No interaction cookie (another browser, a forged cross-site form) or it expired.
      return sendPage(response, 400, errorPage('invalid_request', 'This sign-in page has expired or was opened in another browser. Start again from your MCP client.'));
    }
    if (details.uid !== uid) return sendPage(response, 400, errorPage('invalid_request', 'This sign-in page does not belong to the sign-in under way in this browser.'));

    if (details.prompt.name === 'login') {
      if (consentForm) return sendPage(response, 400, errorPage('invalid_request', 'Sign in first.'));
      try {
        return redirect(response, await signIn.beginSignIn(uid));
      } catch (error) {
        if (!(error instanceof TeamProviderError)) throw error;
        options.logger.warn({ err: error }, 'sign-in: the identity provider cannot be reached');
        return sendPage(response, 502, errorPage('temporarily_unavailable', `${error.message}. Try again in a moment.`));
      }
    }
    if (details.prompt.name !== 'consent') return sendPage(response, 400, errorPage('invalid_request', `This gateway cannot complete the step "${details.prompt.name}".`));

    let consent;
    try {
      consent = await signIn.consentRequest(details);
    } catch (error) {
      if (error instanceof SignInRefusedError) return sendPage(response, 400, errorPage('invalid_request', error.message));
      throw error;
    }
    if (!consentForm) {
      if (consent.automatic) {
        const grantId = await signIn.grant(details, consent, true);
        return provider.interactionFinished(request, response, { consent: { grantId } }, { mergeWithLastSubmission: true });
      }
      if (request.method !== 'GET') return sendPage(response, 405, errorPage('invalid_request', 'Use the form on this page.'));
      return sendPage(response, 200, consentPage(consent, `${INTERACTION_PATH}/${uid}/consent`, signIn.formToken(uid, consent.person.sub)));
    }

    // The decision: a POST from this origin's page, with the form token of this interaction and person.
    if (request.method !== 'POST') return sendPage(response, 405, errorPage('invalid_request', 'Use the form on the consent page.'));
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== issuer.origin) return sendPage(response, 403, errorPage('invalid_request', 'This form was not sent from the consent page.'));
    const form = await readFormWithin(request, CONSENT_FORM_BYTES);
    if (form === undefined || !signIn.formTokenMatches(uid, consent.person.sub, form.get('form_token') ?? '')) {
      return sendPage(response, 403, errorPage('invalid_request', 'This consent form is not valid (it was changed, or is for another sign-in). Start again from your MCP client.'));
    }
    if (form.get('decision') === 'allow') {
      const grantId = await signIn.grant(details, consent, false);
      return provider.interactionFinished(request, response, { consent: { grantId } }, { mergeWithLastSubmission: true });
    }
    signIn.declined(consent);
    return provider.interactionFinished(request, response, { error: 'access_denied', error_description: 'the person declined to allow this client' }, { mergeWithLastSubmission: false });
  }
}

/**
 * Whether oidc-provider would route this path to registration: its router ignores case and one
 * trailing slash, so `/oauth/Register/` registers too, and must not get past the guard.
 */
export function isRegistrationPath(path: string): boolean {
  return routedPath(path) === ROUTES.registration;
}

/** The same for the authorization endpoint (and its resume path, `/oauth/authorize/<uid>`). */
function isAuthorizationPath(path: string): boolean {
  const routed = routedPath(path);
  return routed === ROUTES.authorization || routed.startsWith(`${ROUTES.authorization}/`);
}

function routedPath(path: string): string {
  return (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).toLowerCase();
}

/** The rate limit's 429, as an OAuth error (RFC 6749 section 5.2's shape) with Retry-After. */
function refuseOver(response: ServerResponse, refusal: Refusal): void {
  response.writeHead(refusal.status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...refusal.headers });
  response.end(JSON.stringify({ error: 'too_many_requests', error_description: refusal.message }));
}

function sendPage(response: ServerResponse, status: number, page: RenderedPage): void {
  response.writeHead(status, pageHeaders(page));
  response.end(page.html);
}

function redirect(response: ServerResponse, location: string): void {
  response.writeHead(303, { Location: location, 'Cache-Control': 'no-store' });
  response.end();
}
