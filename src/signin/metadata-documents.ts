// Client ID metadata documents are fetched by oidc-provider (HTTPS only, 2.5 s, 5 KiB, redirects
// not followed, cached per Cache-Control between 30 s and a day, special-use addresses refused by
// its own SSRF guard). What is ours: which hosts may serve them, for tests only leaving out the SSRF
// guard for loopback addresses (auth.signIn.clientMetadataDocuments.allowLoopbackForTests), and
// saying on the error page why a document could not be had.
import type { SignInConfig } from '../config/sign-in.js';

type Documents = SignInConfig['clientMetadataDocuments'];
type FetchOptions = RequestInit & { dispatcher?: unknown };

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

export function metadataHostAllowed(host: string, documents: Documents): boolean {
  const name = host.toLowerCase();
  if (documents.allowedHosts === undefined) return true;
  return documents.allowedHosts.some((allowed) => {
    const pattern = allowed.toLowerCase();
    return pattern.startsWith('*.') ? name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1 : name === pattern;
  });
}

export function metadataDocumentFetch(documents: Documents): (url: URL | string, options: FetchOptions) => Promise<Response> {
  return (url, options) => {
    const target = new URL(url);
    if (documents.allowLoopbackForTests && LOOPBACK.has(target.hostname)) {
      const { dispatcher: _ssrfGuard, ...rest } = options;
      return globalThis.fetch(target, rest);
    }
    return globalThis.fetch(target, options as RequestInit);
  };
}

/** oidc-provider's error_description when a document cannot be fetched or read. */
const FETCH_FAILED = 'client_id metadata document fetch failed';
const FETCH_NOT_ALLOWED = 'client_id metadata document fetch not allowed';

/**
 * Why a client's metadata document could not be had, in words for the person on the error page
 * (oidc-provider says only "fetch failed" and keeps the reason in error_detail and cause); undefined
 * for any other error. Only what anyone could learn by fetching the public URL themselves.
 */
export function metadataDocumentProblem(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { error_description: description, error_detail: detail, cause } = error as { error_description?: unknown; error_detail?: unknown; cause?: unknown };
  if (description === FETCH_NOT_ALLOWED) return "this gateway takes client metadata documents only from the hosts its operator allows, and this client's is not one of them";
  if (description !== FETCH_FAILED) return undefined;
  const status = typeof detail === 'string' ? /^unexpected response status (\d+)$/.exec(detail)?.[1] : undefined;
  if (status !== undefined) return `its URL answered HTTP ${status} rather than 200 with the document (redirects are not followed)`;
  if (detail === 'response too large' || isLockedStreamCancel(cause)) return 'the document is larger than 5 KiB';
  if (cause instanceof SyntaxError) return 'the document is not JSON';
  if (cause instanceof Error && (cause.name === 'TimeoutError' || cause.name === 'AbortError')) return 'its host did not answer within 2.5 s';
  return 'its host could not be reached over HTTPS, or is not on a public address';
}

/**
 * oidc-provider 9.13 stops reading a body past its bound, without a Content-Length, by cancelling
 * the stream it is iterating, which throws "ReadableStream is locked" instead of its own "response
 * too large": nothing else in the fetch cancels a locked stream.
 */
function isLockedStreamCancel(cause: unknown): boolean {
  return cause instanceof TypeError && /ReadableStream is locked/.test(cause.message);
}
