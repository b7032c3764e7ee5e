// Switchboard as a client of an upstream's authorization server: which client ID it uses there.
// In this order unless the config names a client: a client ID metadata document Switchboard
// publishes at its own HTTPS URL (when the server says it takes them), dynamic registration
// (RFC 7591; the registration is kept in the store and reused by every replica), or the client the
// config gives (GitHub's OAuth apps, and any server without registration).
import { createHash } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import type { TokenSealer } from '../credentials/token-sealing.js';
import type { KeyValueStore } from '../session/key-value.js';
import { UpstreamAuthorizationError } from './authorization-discovery.js';

export interface UpstreamClient {
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly how: 'configured' | 'metadata-document' | 'dynamic';
}

export interface ClientRegistrationOptions {
  readonly server: string;
  readonly as: oauth.AuthorizationServer;
  /** From the config: a client registered by hand. */
  readonly configured?: { readonly clientId: string; readonly clientSecret?: string | undefined } | undefined;
  /** Switchboard's own metadata document URL, when its public URL is HTTPS (else none is offered). */
  readonly metadataDocumentUrl?: string | undefined;
  readonly redirectUri: string;
  readonly clientName: string;
  readonly store: KeyValueStore;
  readonly sealer: TokenSealer;
  readonly timeoutMs: number;
  readonly allowInsecureLoopback?: boolean;
}

export async function upstreamClient(options: ClientRegistrationOptions): Promise<UpstreamClient> {
  const { as, configured } = options;
  if (configured) return { clientId: configured.clientId, ...(configured.clientSecret !== undefined && { clientSecret: configured.clientSecret }), how: 'configured' };
  if (options.metadataDocumentUrl !== undefined && (as as { client_id_metadata_document_supported?: boolean }).client_id_metadata_document_supported === true) {
    return { clientId: options.metadataDocumentUrl, how: 'metadata-document' };
  }
  if (as.registration_endpoint !== undefined) return registered(options);
  throw new UpstreamAuthorizationError(
    `the authorization server ${as.issuer} of ${options.server} takes neither client ID metadata documents nor dynamic registration: register Switchboard there by hand (redirect URI ${options.redirectUri}) and give its client in mcpServers.${options.server}.credentials.connection.client`,
  );
}

async function registered(options: ClientRegistrationOptions): Promise<UpstreamClient> {
  const { as, store, sealer } = options;
  const key = `registration:${createHash('sha256').update(`${options.server}\n${as.issuer}\n${options.redirectUri}`, 'utf8').digest('base64url')}`;
  const kept = await store.get(key);
  const opened = kept === undefined ? undefined : sealer.open(kept, key);
  if (opened !== undefined) return JSON.parse(opened) as UpstreamClient;
  // A confidential client where the server allows it (the gateway keeps a secret well), else public.
  const confidential = as.token_endpoint_auth_methods_supported?.includes('client_secret_basic') ?? true;
  let client: oauth.OmitSymbolProperties<oauth.Client>;
  try {
    const response = await oauth.dynamicClientRegistrationRequest(
      as,
      {
        client_name: options.clientName,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: confidential ? 'client_secret_basic' : 'none',
      },
      { signal: AbortSignal.timeout(options.timeoutMs), ...(options.allowInsecureLoopback && { [oauth.allowInsecureRequests]: true }) },
    );
    client = await oauth.processDynamicClientRegistrationResponse(response);
  } catch (error) {
    throw new UpstreamAuthorizationError(`registering with the authorization server ${as.issuer} of ${options.server} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const result: UpstreamClient = { clientId: client.client_id, ...(typeof client.client_secret === 'string' && { clientSecret: client.client_secret }), how: 'dynamic' };
  // Another replica may have registered at the same moment: the first kept wins, so all use one.
  if (!(await store.setIfAbsent(key, sealer.seal(JSON.stringify(result), key), 365 * 24 * 3600))) {
    const winner = await store.get(key);
    const plain = winner === undefined ? undefined : sealer.open(winner, key);
    if (plain !== undefined) return JSON.parse(plain) as UpstreamClient;
  }
  return result;
}
