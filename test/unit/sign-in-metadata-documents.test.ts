// Client ID metadata documents (src/signin/metadata-documents.ts): which hosts may serve them
// (auth.signIn.clientMetadataDocuments.allowedHosts), and what the error page says when a document
// could not be had. The errors are shaped as oidc-provider 9.13 throws them; the integration test
// (sign-in-metadata-documents.test.ts) holds the real ones to the same words.
import { describe, expect, it } from 'vitest';
import { metadataDocumentProblem, metadataHostAllowed } from '../../src/signin/metadata-documents.js';

describe('metadataHostAllowed', () => {
  const documents = (allowedHosts?: string[]) => ({ enabled: true, allowLoopbackForTests: false, ...(allowedHosts && { allowedHosts }) });

  it('allows any host when no list is configured, and none with an empty list', () => {
    expect(metadataHostAllowed('client.example', documents())).toBe(true);
    expect(metadataHostAllowed('client.example', documents([]))).toBe(false);
  });

  it('matches a listed host exactly, whatever its case', () => {
    const listed = documents(['Clients.Example.com']);
    expect(metadataHostAllowed('clients.example.com', listed)).toBe(true);
    expect(metadataHostAllowed('CLIENTS.EXAMPLE.COM', listed)).toBe(true);
    for (const host of ['example.com', 'a.clients.example.com', 'clients.example.com.evil.net', 'evilclients.example.com', 'clients.example.co', 'clients.example.com.']) {
      expect({ host, allowed: metadataHostAllowed(host, listed) }).toEqual({ host, allowed: false });
    }
  });

  it('matches `*.domain` on any subdomain, never the domain itself or a look-alike', () => {
    const wildcard = documents(['*.mcp.example.com']);
    expect(metadataHostAllowed('claude.mcp.example.com', wildcard)).toBe(true);
    expect(metadataHostAllowed('a.b.mcp.example.com', wildcard)).toBe(true);
    for (const host of ['mcp.example.com', '.mcp.example.com', 'evilmcp.example.com', 'mcp.example.com.evil.net', 'example.com']) {
      expect({ host, allowed: metadataHostAllowed(host, wildcard) }).toEqual({ host, allowed: false });
    }
  });
});

describe('metadataDocumentProblem', () => {
  /** As oidc-provider's InvalidClient: error, error_description, error_detail, cause. */
  const fetchFailed = (detail: string | undefined, cause?: unknown) => Object.assign(new Error('invalid_client'), {
    error: 'invalid_client',
    error_description: 'client_id metadata document fetch failed',
    ...(detail !== undefined && { error_detail: detail }),
    ...(cause !== undefined && { cause }),
  });

  it('names the HTTP status the URL answered', () => {
    expect(metadataDocumentProblem(fetchFailed('unexpected response status 404'))).toBe('its URL answered HTTP 404 rather than 200 with the document (redirects are not followed)');
    expect(metadataDocumentProblem(fetchFailed('unexpected response status 302'))).toMatch(/^its URL answered HTTP 302/);
  });

  it('says a document is too large, by its Content-Length or while it was read', () => {
    expect(metadataDocumentProblem(fetchFailed('response too large', new Error('response too large')))).toBe('the document is larger than 5 KiB');
    const locked = new TypeError('Invalid state: ReadableStream is locked');
    expect(metadataDocumentProblem(fetchFailed(locked.message, locked))).toBe('the document is larger than 5 KiB');
  });

  it('says a document is not JSON, and a host that did not answer in time or at all', () => {
    const syntax = new SyntaxError('Unexpected token < in JSON at position 0');
    expect(metadataDocumentProblem(fetchFailed(syntax.message, syntax))).toBe('the document is not JSON');
    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    expect(metadataDocumentProblem(fetchFailed(timeout.message, timeout))).toBe('its host did not answer within 2.5 s');
    const unreachable = new TypeError('fetch failed', { cause: new Error('getaddrinfo ENOTFOUND client.example') });
    // The network's own words (addresses, resolver errors) stay in the log, not on the page.
    expect(metadataDocumentProblem(fetchFailed(unreachable.message, unreachable))).toBe('its host could not be reached over HTTPS, or is not on a public address');
  });

  it('explains a host outside allowedHosts', () => {
    const notAllowed = Object.assign(new Error('invalid_client'), { error: 'invalid_client', error_description: 'client_id metadata document fetch not allowed' });
    expect(metadataDocumentProblem(notAllowed)).toMatch(/only from the hosts its operator allows/);
  });

  it('leaves every other error as it is', () => {
    for (const error of [
      Object.assign(new Error('invalid_client'), { error_description: 'client not found' }),
      Object.assign(new Error('invalid_client_metadata'), { error_description: 'client_id metadata document is not a JSON object' }),
      new Error('boom'),
      undefined,
      'a string',
    ]) {
      expect(metadataDocumentProblem(error)).toBeUndefined();
    }
  });
});
