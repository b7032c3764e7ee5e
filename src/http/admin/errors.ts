// The admin API's one error shape: `{"error": {"code", "message", ...details}}`, with the HTTP
// status that goes with the code (the catalogue's ADMIN_ERRORS). The status page's own refusals
// (401, 403) are plain text.
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ADMIN_ERRORS } from '../../protocol/error-catalogue.js';

export type AdminErrorCode = keyof typeof ADMIN_ERRORS;

export function adminError(
  c: Context,
  code: AdminErrorCode,
  message: string,
  details: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Response {
  const status = ADMIN_ERRORS[code].status as ContentfulStatusCode;
  if (!c.req.path.startsWith('/api/')) {
    return c.text(`${status} ${message}\n`, status, { 'cache-control': 'no-store', ...headers });
  }
  return c.json({ error: { code, message, ...details } }, status, { 'cache-control': 'no-store', ...headers });
}
