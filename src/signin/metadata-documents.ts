// Client ID metadata documents are fetched by oidc-provider (HTTPS only, 2.5 s, 5 KiB, redirects
// not followed, cached per Cache-Control between 30 s and a day, special-use addresses refused by
// its own SSRF guard). What is ours: which hosts may serve them, and, for tests only, leave out the
// SSRF guard for loopback addresses (auth.signIn.clientMetadataDocuments.allowLoopbackForTests).
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
