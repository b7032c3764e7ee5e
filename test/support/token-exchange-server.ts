// An authorization server of our own for the token-exchange tests: a token endpoint that checks a
// request as RFC 8693 (and RFC 6749, RFC 7523 for the client) says, and answers with RFC 6749 5.2
// errors where it falls short, on 127.0.0.1 by node:http. It issues short-lived JWTs signed with its
// own key, published at /jwks.json, so a test can verify what an upstream would receive. Tests can
// count exchanges, read the last form sent, make it refuse, answer nonsense, hang, or go away.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { createLocalJWKSet, createRemoteJWKSet, decodeJwt, exportJWK, generateKeyPair, jwtVerify, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

const GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const JWT_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:jwt';
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** RFC 8693 lets audience and resource repeat; no other parameter may (RFC 6749 3.2). */
const REPEATABLE = new Set(['audience', 'resource']);

export type ClientAuthenticationMethod = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';

export interface RegisteredClient {
  readonly clientId: string;
  /** The one method this client may use (as a provider's client registration says). */
  readonly authentication: ClientAuthenticationMethod;
  readonly secret?: string;
  /** private_key_jwt: the key its assertions are verified with. */
  readonly publicKey?: CryptoKey | JWK;
  /** false: known, but not allowed the token-exchange grant (unauthorized_client). Default true. */
  readonly mayExchange?: boolean;
}

/** Whose tokens may be exchanged: an issuer's JWKS, or a function that verifies (rejects if not). */
export type SubjectTokenTrust = { readonly issuer: string; readonly jwksUri: string; readonly audience?: string } | ((token: string) => Promise<JWTPayload>);

export interface TokenExchangeServerOptions {
  readonly trust: SubjectTokenTrust;
  readonly clients: readonly RegisteredClient[];
  /** Audiences it issues tokens for; anything else is invalid_target. */
  readonly audiences?: readonly string[];
  /** Resources it issues tokens for; anything else is invalid_target. */
  readonly resources?: readonly string[];
  /** Lifetime of issued tokens in seconds; default 60. */
  readonly expiresIn?: number;
}

export interface TokenExchangeServer {
  /** Its issuer identifier (the `iss` of what it issues), and its endpoints. */
  readonly issuer: string;
  readonly tokenEndpoint: string;
  readonly jwksUri: string;
  /** Requests the token endpoint received, whatever became of them. */
  readonly exchanges: number;
  /** Of those, how many carried a subject token whose `sub` is this. */
  exchangesFor(sub: string): number;
  /** The form of the last request to the token endpoint (the last value of a repeated field). */
  readonly lastForm: Readonly<Record<string, string>> | undefined;
  readonly lastHeaders: IncomingHttpHeaders | undefined;
  /** Every exchange fails with this RFC 6749 5.2 error (401 for invalid_client, else 400). */
  refuse(error: string, description?: string): void;
  /** Every exchange is answered with this status and body, whatever it asked. */
  answerWith(status: number, body: string, contentType?: string): void;
  /** Every exchange waits for an answer that never comes (until stop or down). */
  stall(): void;
  /** Back to checking requests and issuing tokens. */
  accept(): void;
  /** Seconds; `undefined` leaves expires_in out of the answer. */
  setExpiresIn(seconds: number | undefined): void;
  /** Verifies one of its own tokens, as an upstream would. */
  verify(token: string, audience: string): Promise<JWTPayload>;
  /** Closes every open connection, as an idle timeout does to kept-alive ones; still listening. */
  dropConnections(): void;
  /** Stops listening (connections refused) on the same port that up() listens on again. */
  down(): Promise<void>;
  up(): Promise<void>;
  stop(): Promise<void>;
}

class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = error === 'invalid_client' ? 401 : 400,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(description);
  }
}

type Mode = { kind: 'check' } | { kind: 'refuse'; error: string; description: string | undefined } | { kind: 'answer'; status: number; body: string; contentType: string } | { kind: 'stall' };

export async function startTokenExchangeServer(options: TokenExchangeServerOptions): Promise<TokenExchangeServer> {
  const key = await generateKeyPair('ES256', { extractable: true });
  const kid = randomUUID();
  const publicJwk: JWK = { ...(await exportJWK(key.publicKey)), kid, alg: 'ES256', use: 'sig' };
  const ownKeys = createLocalJWKSet({ keys: [publicJwk] });
  const verifySubject = subjectVerifier(options.trust);
  const clients = new Map(options.clients.map((client) => [client.clientId, client]));
  const seenAssertions = new Set<string>();
  const perSubject = new Map<string, number>();
  const sockets = new Set<Socket>();
  let mode: Mode = { kind: 'check' };
  let expiresIn: number | undefined = options.expiresIn ?? 60;
  let exchanges = 0;
  let lastForm: Record<string, string> | undefined;
  let lastHeaders: IncomingHttpHeaders | undefined;
  let server: Server;
  let port = 0;
  let issuer = '';

  const tokenEndpoint = () => `${issuer}/token`;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.url === '/jwks.json' && request.method === 'GET') {
      respond(response, 200, { keys: [publicJwk] });
      return;
    }
    if (request.url !== '/token') {
      respond(response, 404, { error: 'not_found' });
      return;
    }
    const body = await readBody(request);
    exchanges += 1;
    lastHeaders = request.headers;
    const form = new URLSearchParams(body);
    lastForm = Object.fromEntries(form);
    const subject = subjectOf(form.get('subject_token'));
    if (subject !== undefined) perSubject.set(subject, (perSubject.get(subject) ?? 0) + 1);

    switch (mode.kind) {
      case 'stall':
        return; // the socket is destroyed by down() or stop()
      case 'answer':
        response.writeHead(mode.status, { 'content-type': mode.contentType }).end(mode.body);
        return;
      case 'refuse':
        throw new OAuthError(mode.error, mode.description ?? '');
      case 'check':
        respond(response, 200, await exchange(request, form), { 'cache-control': 'no-store', pragma: 'no-cache' });
    }
  }

  async function exchange(request: IncomingMessage, form: URLSearchParams): Promise<Record<string, unknown>> {
    // RFC 6749 3.2: the token endpoint takes POST, with form-encoded parameters, each at most once.
    if (request.method !== 'POST') throw new OAuthError('invalid_request', 'the token endpoint takes POST');
    const type = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded') throw new OAuthError('invalid_request', 'the body must be application/x-www-form-urlencoded');
    for (const name of new Set(form.keys())) {
      if (!REPEATABLE.has(name) && form.getAll(name).length > 1) throw new OAuthError('invalid_request', `${name} is given more than once`);
    }
    const client = await authenticateClient(request, form);
    if (form.get('grant_type') !== GRANT_TYPE) throw new OAuthError('unsupported_grant_type', `grant_type must be ${GRANT_TYPE}`);
    if (client.mayExchange === false) throw new OAuthError('unauthorized_client', `client ${client.clientId} may not exchange tokens`);

    // RFC 8693 2.1: subject_token and subject_token_type are required.
    const subjectToken = form.get('subject_token');
    if (!subjectToken) throw new OAuthError('invalid_request', 'subject_token is missing');
    const subjectTokenType = form.get('subject_token_type');
    if (!subjectTokenType) throw new OAuthError('invalid_request', 'subject_token_type is missing');
    if (subjectTokenType !== ACCESS_TOKEN_TYPE && subjectTokenType !== JWT_TOKEN_TYPE) throw new OAuthError('invalid_request', `subject_token_type ${subjectTokenType} is not supported`);
    const requestedType = form.get('requested_token_type') ?? ACCESS_TOKEN_TYPE;
    if (requestedType !== ACCESS_TOKEN_TYPE && requestedType !== JWT_TOKEN_TYPE) throw new OAuthError('invalid_request', `requested_token_type ${requestedType} is not supported`);

    let subject: JWTPayload;
    try {
      subject = await verifySubject(subjectToken);
    } catch (error) {
      throw new OAuthError('invalid_grant', `the subject token is not valid: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (typeof subject.sub !== 'string') throw new OAuthError('invalid_grant', 'the subject token has no sub');

    const audiences = form.getAll('audience');
    const resources = form.getAll('resource');
    for (const audience of audiences) if (!(options.audiences ?? []).includes(audience)) throw new OAuthError('invalid_target', `no tokens are issued for audience ${audience}`);
    for (const resource of resources) if (!(options.resources ?? []).includes(resource)) throw new OAuthError('invalid_target', `no tokens are issued for resource ${resource}`);
    const targets = [...audiences, ...resources];
    if (targets.length === 0) throw new OAuthError('invalid_target', 'name an audience or a resource');

    const scope = form.get('scope') ?? undefined;
    const now = Math.floor(Date.now() / 1000);
    const lifetime = expiresIn ?? 60;
    const accessToken = await new SignJWT({ client_id: client.clientId, act: { sub: client.clientId }, ...(scope !== undefined && { scope }) })
      .setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' })
      .setIssuer(issuer)
      .setSubject(subject.sub)
      .setAudience(targets.length === 1 ? targets[0]! : targets)
      .setIssuedAt(now)
      .setExpirationTime(now + lifetime)
      .setJti(randomUUID())
      .sign(key.privateKey);
    return {
      access_token: accessToken,
      issued_token_type: requestedType,
      token_type: requestedType === ACCESS_TOKEN_TYPE ? 'Bearer' : 'N_A',
      ...(expiresIn !== undefined && { expires_in: expiresIn }),
      ...(scope !== undefined && { scope }),
    };
  }

  /** RFC 6749 2.3 and RFC 7523 2.2: exactly one method, the one the client registered. */
  async function authenticateClient(request: IncomingMessage, form: URLSearchParams): Promise<RegisteredClient> {
    const authorization = request.headers.authorization;
    const basic = authorization?.toLowerCase().startsWith('basic ') ? authorization.slice(6).trim() : undefined;
    const used: ClientAuthenticationMethod[] = [];
    if (basic !== undefined) used.push('client_secret_basic');
    if (form.has('client_secret')) used.push('client_secret_post');
    if (form.has('client_assertion')) used.push('private_key_jwt');
    if (used.length > 1) throw new OAuthError('invalid_request', `more than one client authentication method: ${used.join(', ')}`);
    const method = used[0];
    const challenge: Record<string, string> = method === 'client_secret_basic' ? { 'www-authenticate': 'Basic realm="token-exchange"' } : {};
    const refuse = (description: string) => new OAuthError('invalid_client', description, 401, challenge);
    if (method === undefined) throw refuse('no client authentication');

    let clientId: string;
    let secret: string | undefined;
    if (method === 'client_secret_basic') {
      const decoded = Buffer.from(basic!, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) throw refuse('the Basic credentials have no ":"');
      // RFC 6749 2.3.1: each half was form-urlencoded before it was joined.
      clientId = formUrlDecode(decoded.slice(0, colon));
      secret = formUrlDecode(decoded.slice(colon + 1));
    } else if (method === 'client_secret_post') {
      clientId = form.get('client_id') ?? '';
      secret = form.get('client_secret') ?? '';
    } else {
      if (form.get('client_assertion_type') !== ASSERTION_TYPE) throw refuse(`client_assertion_type must be ${ASSERTION_TYPE}`);
      const claims = decodeUnverified(form.get('client_assertion') ?? '');
      clientId = typeof claims?.iss === 'string' ? claims.iss : '';
      const named = form.get('client_id');
      if (named !== null && named !== clientId) throw refuse('client_id is not the assertion\'s issuer');
    }

    const client = clients.get(clientId);
    if (client === undefined) throw refuse('unknown client');
    if (client.authentication !== method) throw refuse(`client ${clientId} authenticates with ${client.authentication}, not ${method}`);
    if (method === 'private_key_jwt') {
      if (client.publicKey === undefined) throw refuse('the client has no registered key');
      try {
        const { payload } = await jwtVerify(form.get('client_assertion')!, client.publicKey, {
          issuer: clientId,
          subject: clientId,
          audience: tokenEndpoint(),
          requiredClaims: ['jti', 'exp'],
          maxTokenAge: '5m',
        });
        // RFC 7523 3: a server may refuse a jti it has seen (a replayed assertion).
        if (seenAssertions.has(payload.jti!)) throw new Error('the assertion was used before');
        seenAssertions.add(payload.jti!);
      } catch (error) {
        throw refuse(`the client assertion is not valid: ${error instanceof Error ? error.message : String(error)}`);
      }
    } else if (client.secret === undefined || secret !== client.secret) {
      throw refuse('wrong client secret');
    }
    return client;
  }

  function listen(onPort: number): Promise<void> {
    server = createServer((request, response) => {
      handle(request, response).catch((error: unknown) => {
        if (error instanceof OAuthError) {
          respond(response, error.status, { error: error.error, ...(error.description && { error_description: error.description }) }, { 'cache-control': 'no-store', ...error.headers });
        } else {
          respond(response, 500, { error: 'server_error' });
        }
      });
    });
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    server.listen(onPort, '127.0.0.1');
    return once(server, 'listening').then(() => undefined);
  }

  function close(): Promise<void> {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Keep-alive and stalled connections too: down means nothing answers at all.
    for (const socket of sockets) socket.destroy();
    return closed;
  }

  await listen(0);
  port = (server!.address() as AddressInfo).port;
  issuer = `http://127.0.0.1:${port}`;
  let running = true;

  return {
    issuer,
    tokenEndpoint: tokenEndpoint(),
    jwksUri: `${issuer}/jwks.json`,
    get exchanges() {
      return exchanges;
    },
    exchangesFor: (sub) => perSubject.get(sub) ?? 0,
    get lastForm() {
      return lastForm;
    },
    get lastHeaders() {
      return lastHeaders;
    },
    refuse(error, description) {
      mode = { kind: 'refuse', error, description };
    },
    answerWith(status, body, contentType = 'application/json') {
      mode = { kind: 'answer', status, body, contentType };
    },
    stall() {
      mode = { kind: 'stall' };
    },
    accept() {
      mode = { kind: 'check' };
    },
    setExpiresIn(seconds) {
      expiresIn = seconds;
    },
    async verify(token, audience) {
      const { payload } = await jwtVerify(token, ownKeys, { issuer, audience });
      return payload;
    },
    dropConnections() {
      for (const socket of sockets) socket.destroy();
    },
    async down() {
      if (!running) return;
      running = false;
      await close();
    },
    async up() {
      if (running) return;
      await listen(port);
      running = true;
    },
    async stop() {
      if (!running) return;
      running = false;
      await close();
    },
  };
}

function subjectVerifier(trust: SubjectTokenTrust): (token: string) => Promise<JWTPayload> {
  if (typeof trust === 'function') return trust;
  const keys = createRemoteJWKSet(new URL(trust.jwksUri));
  return async (token) => (await jwtVerify(token, keys, { issuer: trust.issuer, ...(trust.audience !== undefined && { audience: trust.audience }) })).payload;
}

function respond(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function formUrlDecode(value: string): string {
  return new URLSearchParams(`v=${value}`).get('v') ?? '';
}

function decodeUnverified(token: string): JWTPayload | undefined {
  try {
    return decodeJwt(token);
  } catch {
    return undefined;
  }
}

/** For counting only: the sub the subject token claims, before anything is verified. */
function subjectOf(token: string | null): string | undefined {
  const sub = token ? decodeUnverified(token)?.sub : undefined;
  return typeof sub === 'string' ? sub : undefined;
}
