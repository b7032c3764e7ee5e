// The admin API's one error shape: `{"error": {"code", "message", ...details}}`, with the HTTP
// status that goes with the code. The status page's own refusals (401, 403) are plain text.
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export const ADMIN_ERRORS = {
  'bad-request': 400,
  unauthorized: 401,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  'unsupported-media-type': 415,
  'invalid-config': 422,
  'internal-error': 500,
  unavailable: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type AdminErrorCode = keyof typeof ADMIN_ERRORS;

export function adminError(
  c: Context,
  code: AdminErrorCode,
  message: string,
  details: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Response {
  const status = ADMIN_ERRORS[code];
  if (!c.req.path.startsWith('/api/')) {
    return c.text(`${status} ${message}\n`, status, { 'cache-control': 'no-store', ...headers });
  }
  return c.json({ error: { code, message, ...details } }, status, { 'cache-control': 'no-store', ...headers });
}
