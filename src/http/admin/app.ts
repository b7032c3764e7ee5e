// The admin listener's Hono app: the status page (/status) and the admin API (/api/...), with the
// same facts, plus the actions (restart an upstream, reload the config, drain). Served on its own
// listener (config `admin`), loopback by default; with `auth`, every request needs a token with
// the admin scope. Actions and refusals are audited; every request has an access line
// (access-lines.ts). Routes: docs/reference/http-endpoints.md.
import { randomBytes } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { reloadConfig, restartUpstream } from '../../admin/actions.js';
import { catalogOf, previewCatalog, previewRequest, UnknownEndpointError } from '../../admin/catalog.js';
import { redactedConfig } from '../../admin/config-view.js';
import type { OperatorSources } from '../../admin/sources.js';
import { adminStatus, sessionsStatus, upstreamEntries } from '../../admin/status.js';
import type { TokenVerifier } from '../../auth/token-verifier.js';
import { auditAdmin, type AdminActionEvent } from '../../observe/audit.js';
import type { Logger } from '../../observe/logger.js';
import { clientAddress } from '../client-address.js';
import { trustProxies } from '../client-address.js';
import type { TrustedProxies } from '../trusted-proxies.js';
import { requestId } from '../middleware/request-id.js';
import { adminAccessLines } from './access-lines.js';
import { adminAuth } from './admin-auth.js';
import type { AdminEnv } from './admin-env.js';
import { browserSignIn, type BrowserSignInOptions } from './browser-sign-in.js';
import { SessionSealer } from './session-cookie.js';
import { adminError } from './errors.js';
import { renderPage } from './page.js';
import { adminRequestGuard } from './request-guard.js';

export interface AdminAppOptions {
  readonly sources: OperatorSources;
  readonly logger: Logger;
  /** With `auth`: the gateway's token verifier, the admin scope and the gateway's metadata URL. */
  readonly auth?: { readonly verifier: TokenVerifier; readonly scope: string; readonly resourceMetadata: string; readonly signIn?: AdminSignInOptions };
  /** The listener is bound to loopback: Host headers must name a loopback host. */
  readonly loopbackOnly: boolean;
  /** server.trustedProxies: who is believed about the client's address (the access and audit lines); default none. */
  readonly trustedProxies?: TrustedProxies;
}

/** People sign in to the status page in their browser (browser-sign-in.ts): sign-in mode, or auth.browserSignIn. */
export type AdminSignInOptions = Pick<BrowserSignInOptions, 'oauth' | 'pageOrigin'> & {
  /** auth.signIn.secret or auth.browserSignIn.secret: the session cookie's key is derived from it. */
  readonly secret: string;
};

/** Preview bodies are a principal's claims: small. */
const MAX_JSON_BYTES = 64 * 1024;

export function createAdminApp({ sources, logger, auth, loopbackOnly, trustedProxies }: AdminAppOptions): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  const audit = auditAdmin(logger);
  if (trustedProxies?.any) app.use('*', trustProxies(trustedProxies));
  app.use('*', requestId());
  app.use('*', adminAccessLines(logger));
  app.use(
    '*',
    adminRequestGuard({
      loopbackOnly,
      onRefused: (event) => {
        const { reason, detail, httpMethod, path, client, requestId } = event;
        logger.warn({ reason, detail, httpMethod, path, client, requestId }, 'admin listener: refused a request from another page or host');
        audit.refusal(event);
      },
    }),
  );
  if (auth) {
    const { signIn, ...bearer } = auth;
    const sessions = signIn && new SessionSealer(signIn.secret);
    // Before the auth check: these are how a person without a session gets one.
    if (signIn && sessions) {
      browserSignIn(app, { oauth: signIn.oauth, pageOrigin: signIn.pageOrigin, sealer: sessions, verifier: auth.verifier, scope: auth.scope, onAction: (event) => audit.action(event) });
    }
    app.use('*', adminAuth({ ...bearer, ...(sessions && { sessions }), onRefused: (event) => audit.refusal(event) }));
  }

  const actionAudit = (c: Context<AdminEnv>, started: number, event: Pick<AdminActionEvent, 'action' | 'outcome'> & Partial<AdminActionEvent>) => {
    const principal = c.get('principal');
    audit.action({
      ...event,
      ...(principal && { sub: principal.sub }),
      client: clientAddress(c),
      requestId: c.get('requestId'),
      durationMs: performance.now() - started,
    });
  };

  app.get('/', (c) => c.redirect('/status'));

  app.get('/status', async (c) => {
    const live = c.req.query('live') !== undefined;
    const nonce = randomBytes(16).toString('base64');
    const config = sources.config();
    const page = await renderPage(
      {
        status: await adminStatus(sources),
        catalog: live ? [] : (catalogOf(sources) ?? []),
        configJson: live ? '' : JSON.stringify(redactedConfig(config), null, 2),
        endpointNames: Object.keys(config.endpoints),
        canReload: sources.reload !== undefined,
        nonce,
        ...(c.get('adminSession') && { signedIn: c.get('adminSession') }),
      },
      live,
    );
    return c.html(page, 200, {
      'cache-control': 'no-store',
      'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
      'x-content-type-options': 'nosniff',
      // same-origin, not no-referrer: with no-referrer a browser sends "Origin: null" on the sign-out form's POST.
      'referrer-policy': 'same-origin',
      'x-frame-options': 'DENY',
    });
  });

  app.get('/api/status', async (c) => json(c, await adminStatus(sources)));
  app.get('/api/upstreams', async (c) => json(c, { upstreams: await upstreamEntries(sources) }));
  app.get('/api/upstreams/:name', async (c) => {
    const name = c.req.param('name');
    const entry = (await upstreamEntries(sources)).find((upstream) => upstream.name === name);
    return entry ? json(c, { upstream: entry }) : adminError(c, 'not-found', `no server named "${name}" is configured`);
  });
  app.get('/api/sessions', async (c) => json(c, { sessions: await sessionsStatus(sources) }));
  app.get('/api/catalog', (c) => {
    const server = c.req.query('server');
    const servers = catalogOf(sources, server);
    return servers ? json(c, { servers }) : adminError(c, 'not-found', `no enabled server named "${server}" is configured`);
  });
  app.post('/api/catalog/preview', async (c) => {
    const body = await readJson(c);
    if ('error' in body) return body.error;
    const parsed = previewRequest.safeParse(body.value);
    if (!parsed.success) {
      return adminError(c, 'bad-request', 'the body must be {"principal": {"sub", "scopes", "claims"} | null, "endpoint"?}', {
        problems: parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
      });
    }
    try {
      return json(c, previewCatalog(sources, parsed.data));
    } catch (error) {
      if (error instanceof UnknownEndpointError) return adminError(c, 'not-found', error.message);
      throw error;
    }
  });
  app.get('/api/config', (c) => json(c, { file: sources.configFile ?? null, config: redactedConfig(sources.config()) }));

  app.post('/api/upstreams/:name/restart', async (c) => {
    const started = performance.now();
    const name = c.req.param('name');
    const outcome = await restartUpstream(sources, name);
    if (outcome.outcome === 'refused') {
      actionAudit(c, started, { action: 'restart', target: name, outcome: 'refused', reason: outcome.message });
      return adminError(c, outcome.code, outcome.message);
    }
    const up = outcome.upstream.state === 'ready';
    actionAudit(c, started, { action: 'restart', target: name, outcome: up ? 'ok' : 'error', ...(!up && { reason: outcome.upstream.lastError ?? `state ${outcome.upstream.state}` }) });
    return json(c, { upstream: outcome.upstream });
  });

  app.post('/api/reload', async (c) => {
    const started = performance.now();
    const outcome = await reloadConfig(sources);
    switch (outcome.outcome) {
      case 'applied':
        actionAudit(c, started, { action: 'reload', outcome: 'ok' });
        return json(c, outcome);
      case 'refused':
        if ('code' in outcome) {
          actionAudit(c, started, { action: 'reload', outcome: 'refused', reason: outcome.message });
          return adminError(c, outcome.code, outcome.message);
        }
        actionAudit(c, started, { action: 'reload', outcome: 'refused', reason: 'the new config is invalid' });
        return adminError(c, 'invalid-config', 'the new config is invalid; the running config stays', { problems: outcome.problems });
      case 'failed':
        actionAudit(c, started, { action: 'reload', outcome: 'error', reason: outcome.error });
        return adminError(c, 'internal-error', `the reload failed: ${outcome.error}`);
    }
  });

  app.post('/api/drain', (c) => {
    const started = performance.now();
    sources.setDraining(true);
    actionAudit(c, started, { action: 'drain', outcome: 'ok' });
    return json(c, { status: sources.isDraining() ? 'draining' : 'ready' });
  });
  app.delete('/api/drain', (c) => {
    const started = performance.now();
    sources.setDraining(false);
    // A gateway that is shutting down stays draining.
    const resumed = !sources.isDraining();
    actionAudit(c, started, { action: 'resume', outcome: resumed ? 'ok' : 'refused', ...(!resumed && { reason: 'the gateway is shutting down' }) });
    return resumed ? json(c, { status: 'ready' }) : adminError(c, 'conflict', 'the gateway is shutting down; it stays draining');
  });

  app.notFound((c) => adminError(c, 'not-found', `nothing at ${c.req.method} ${c.req.path}`));
  app.onError((error, c) => {
    logger.error({ err: error, requestId: c.get('requestId') }, 'unhandled error in the admin listener');
    return adminError(c, 'internal-error', 'internal error (logged)');
  });
  return app;
}

function json(c: Context, body: unknown): Response {
  return c.json(body, 200, { 'cache-control': 'no-store' });
}

async function readJson(c: Context): Promise<{ value: unknown } | { error: Response }> {
  const tooLarge = () => ({ error: adminError(c, 'bad-request', `the body is larger than ${MAX_JSON_BYTES} bytes`, {}, { Connection: 'close' }) });
  if (Number(c.req.header('content-length') ?? '0') > MAX_JSON_BYTES) return tooLarge();
  // Read up to the limit, whatever the body declared (or did not: chunked).
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = c.req.raw.body?.getReader();
  for (;;) {
    const chunk = reader ? await reader.read() : { done: true as const, value: undefined };
    if (chunk.done) break;
    size += chunk.value.byteLength;
    if (size > MAX_JSON_BYTES) {
      void reader?.cancel().catch(() => {});
      return tooLarge();
    }
    chunks.push(chunk.value);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return { value: {} };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return { error: adminError(c, 'bad-request', 'the body is not JSON') };
  }
}
