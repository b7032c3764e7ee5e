// The authorization server's audit lines: what oidc-provider tells of (a client registered, a token
// issued or refreshed, a refresh token used twice, a revocation) joined to the steps of ours (signed
// in, consented) in one shape, written by observe/audit.ts. No token, code or verifier: ids of
// clients and people only.
import type { IncomingMessage } from 'node:http';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';

export const SIGN_IN_AUDIT_EVENTS = [
  'signed-in',
  'sign-in-failed',
  'consented',
  'consent-automatic',
  'consent-denied',
  'client-registered',
  'token-issued',
  'token-refreshed',
  'token-refused',
  'refresh-token-reused',
  'token-revoked',
] as const;

export interface SignInAuditEvent {
  readonly event: (typeof SIGN_IN_AUDIT_EVENTS)[number];
  readonly sub?: string;
  readonly clientId?: string;
  readonly scopes?: readonly string[];
  /** Why it failed: the OAuth error and its description. */
  readonly reason?: string;
  readonly client?: string;
}

export function signInAuditEvents(
  provider: Provider,
  audit: (event: SignInAuditEvent) => void,
  clientAddress: (request: IncomingMessage) => string = (request) => request.socket.remoteAddress ?? '',
): void {
  const address = (ctx: KoaContextWithOIDC) => clientAddress(ctx.req);
  provider.on('registration_create.success', (ctx: KoaContextWithOIDC, client: { clientId: string }) => {
    audit({ event: 'client-registered', clientId: client.clientId, client: address(ctx) });
  });
  provider.on('grant.success', (ctx: KoaContextWithOIDC) => {
    const grantType = String(ctx.oidc.params?.grant_type ?? '');
    const sub = ctx.oidc.account?.accountId;
    audit({
      event: grantType === 'refresh_token' ? 'token-refreshed' : 'token-issued',
      ...(sub !== undefined && { sub }),
      ...(ctx.oidc.client && { clientId: ctx.oidc.client.clientId }),
      client: address(ctx),
    });
  });
  provider.on('grant.error', (ctx: KoaContextWithOIDC, error: { error?: string; error_description?: string; error_detail?: string }) => {
    // The client is told "grant request is invalid"; the detail is for the operator.
    const detail = error.error_detail ?? error.error_description;
    const reused = detail === 'refresh token already used';
    audit({
      event: reused ? 'refresh-token-reused' : 'token-refused',
      ...(ctx.oidc.client && { clientId: ctx.oidc.client.clientId }),
      reason: `${error.error ?? 'error'}${detail ? `: ${detail}` : ''}`,
      client: address(ctx),
    });
  });
  // RFC 7009 answers 200 whether or not the token was known; the line says a revocation was asked.
  provider.use(async (ctx, next) => {
    await next();
    const oidc = (ctx as KoaContextWithOIDC).oidc as KoaContextWithOIDC['oidc'] | undefined;
    if (oidc?.route === 'revocation' && ctx.status === 200) {
      audit({ event: 'token-revoked', ...(oidc.client && { clientId: oidc.client.clientId }), client: address(ctx as KoaContextWithOIDC) });
    }
  });
}
