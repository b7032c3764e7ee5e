// Sign-in mode's one entry point (auth.signIn): the authorization server MCP clients see, its keys,
// the people who signed in, and the two steps a person's browser takes, signing in at the team's
// provider and consenting. The HTTP layer (http/sign-in/) routes requests here; every step keeps
// its state in the key-value store, so any replica serves any step.
import type { IncomingMessage } from 'node:http';
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type Provider from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { JWTVerifyGetKey } from 'jose';
import { BROKER_CALLBACK_PATH, type SignInConfig } from '../config/sign-in.js';
import { TokenSealer } from '../credentials/token-sealing.js';
import type { KeyValueStore } from '../session/key-value.js';
import { createAuthorizationServer, type BuiltInClient, type ResourceEndpoint } from './authorization-server.js';
import { Consents, mayBeGranted, type ScopesByResource } from './consents.js';
import { KeyRing } from './key-ring.js';
import { metadataDocumentFetch, metadataHostAllowed } from './metadata-documents.js';
import { MissingSubjectError, People, personFromClaims, type Person } from './people.js';
import { SignInRefusedError, TeamProvider, type PendingSignIn } from './team-provider.js';
import { signInAuditEvents, type SignInAuditEvent } from './audit-events.js';

export type { SignInAuditEvent } from './audit-events.js';

export interface SignInOptions {
  /** The gateway's public origin: the issuer of its tokens. */
  readonly issuer: string;
  readonly config: SignInConfig;
  readonly resources: readonly ResourceEndpoint[];
  readonly store: KeyValueStore;
  /** The gateway's own clients (the status page): pre-registered and trusted (no consent page). */
  readonly builtInClients?: readonly BuiltInClient[];
  readonly errorPage: (error: string, description: string) => { readonly html: string; readonly csp: string };
  readonly audit: (event: SignInAuditEvent) => void;
  /** The client's address of a request, for the audit lines (http/client-address.ts: a trusted proxy's forwarding believed). */
  readonly clientAddress?: (request: IncomingMessage) => string;
  /** Told when building the authorization server with new keys fails (the old one keeps serving). */
  readonly onError: (error: unknown, message: string) => void;
}

/** The part of oidc-provider's Interaction the consent step reads. */
export interface InteractionView {
  readonly uid: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly prompt: { readonly name: string; readonly details: Readonly<Record<string, unknown>> };
  readonly session?: { readonly accountId?: string } | undefined;
  readonly grantId?: string | undefined;
}

/** What the consent page shows and what Allow grants. */
export interface ConsentRequest {
  readonly clientId: string;
  /** The name the client gave itself (registration or metadata document), if any. */
  readonly clientName?: string;
  /** What vouches for the client: its metadata document's host, or where it sends the person back. */
  readonly clientOrigin: string;
  readonly verifiedByDocument: boolean;
  readonly person: Person;
  /** What will be granted, by resource; OpenID scopes under the empty key. */
  readonly scopes: ScopesByResource;
  /** Scopes asked for that this person may not be granted (scopeGrants). */
  readonly withheld: readonly string[];
  /** The same, by resource: the grant records them as rejected, so they are not asked for again. */
  readonly withheldByResource: ScopesByResource;
  /** Trusted client, or everything asked was allowed before: no page. */
  readonly automatic: boolean;
  /** Where the browser goes after the decision (the consent page's CSP allows its origin). */
  readonly redirectUri: string;
}

const PENDING_SECONDS = 600;

export class SignIn {
  readonly issuer: string;
  readonly callbackUrl: string;
  readonly #options: SignInOptions;
  readonly #sealer: TokenSealer;
  readonly #keys: KeyRing;
  readonly #people: People;
  readonly #consents: Consents;
  readonly #team: TeamProvider;
  readonly #formKey: Buffer;
  #provider!: Provider;

  private constructor(options: SignInOptions) {
    this.#options = options;
    this.issuer = options.issuer;
    this.callbackUrl = `${options.issuer}${BROKER_CALLBACK_PATH}`;
    const { config, store } = options;
    this.#sealer = new TokenSealer(config.secret, 'sign-in-state');
    this.#formKey = Buffer.from(hkdfSync('sha256', Buffer.from(config.secret, 'utf8'), 'switchboard', 'sign-in-forms', 32));
    const familySeconds = config.tokens.refreshTokenDays * 24 * 3600;
    this.#people = new People(store, this.#sealer, familySeconds);
    this.#consents = new Consents(store, familySeconds);
    this.#team = new TeamProvider(config.provider, this.callbackUrl);
    this.#keys = new KeyRing({
      store,
      sealer: this.#sealer,
      rotationDays: config.signingKeyRotationDays,
      longestTokenSeconds: config.tokens.accessTokenSeconds,
      onChange: () => this.#rebuild(),
    });
  }

  /** Loads (or makes) the signing keys, then builds the authorization server. */
  static async start(options: SignInOptions): Promise<SignIn> {
    const signIn = new SignIn(options);
    await signIn.#keys.start();
    if (signIn.#provider === undefined) signIn.#build();
    return signIn;
  }

  /** The authorization server as it is now (rebuilt when the signing keys change). */
  get provider(): Provider {
    return this.#provider;
  }

  /** For the gateway's own token check: the key a token's `kid` names. */
  get keys(): JWTVerifyGetKey {
    return this.#keys.lookup;
  }

  get registrationLimits(): SignInConfig['registration'] {
    return this.#options.config.registration;
  }

  /** Starts the person's sign-in at the team's provider for interaction `uid`: where to send the browser. */
  async beginSignIn(uid: string): Promise<string> {
    const { url, pending } = await this.#team.begin();
    const key = pendingKey(pending.state);
    await this.#options.store.set(key, this.#sealer.seal(JSON.stringify({ uid, pending }), key), PENDING_SECONDS);
    return url;
  }

  /**
   * The provider sent the browser back: the state is taken (once: a replayed one finds nothing),
   * the code exchanged, the person recorded, and the interaction told who signed in. Returns where
   * the browser resumes the client's authorization.
   */
  async finishSignIn(callback: URL): Promise<{ readonly returnTo: string; readonly sub: string }> {
    const state = callback.searchParams.get('state');
    if (state === null || state === '') throw new SignInRefusedError('the answer from the identity provider has no state');
    const key = pendingKey(state);
    const sealed = await this.#options.store.take(key);
    const plain = sealed === undefined ? undefined : this.#sealer.open(sealed, key);
    if (plain === undefined) throw new SignInRefusedError('this sign-in has expired or was already completed; start again from your MCP client');
    const { uid, pending } = JSON.parse(plain) as { uid: string; pending: PendingSignIn };
    const interaction = await this.#provider.Interaction.find(uid);
    if (interaction === undefined) throw new SignInRefusedError('the authorization this sign-in was for has expired; start again from your MCP client');
    const clientId = String(interaction.params.client_id ?? '');
    const mapping = this.#options.config.claims;
    let sub = '';
    try {
      const claims = await this.#team.finish(callback, pending, [mapping.email, mapping.name, mapping.groups]);
      const person = personFromClaims(claims, mapping);
      await this.#people.save(person);
      sub = person.sub;
      interaction.result = { login: { accountId: person.sub } };
      this.#options.audit({ event: 'signed-in', sub, clientId });
    } catch (error) {
      // Refused at the provider (the person declined, a forged answer, no subject claim): the
      // client is told access_denied through its redirect, rather than left waiting.
      if (!(error instanceof SignInRefusedError || error instanceof MissingSubjectError)) throw error;
      interaction.result = { error: 'access_denied', error_description: `sign-in at the identity provider failed: ${error.message}` };
      this.#options.audit({ event: 'sign-in-failed', clientId, reason: error.message });
    }
    await interaction.save(Math.max(1, (interaction.exp ?? 0) - Math.floor(Date.now() / 1000)));
    return { returnTo: interaction.returnTo, sub };
  }

  /** What the consent step is about: the client, the person, and the scopes they may grant. */
  async consentRequest(interaction: InteractionView): Promise<ConsentRequest> {
    const sub = interaction.session?.accountId;
    const person = sub === undefined ? undefined : await this.#people.find(sub);
    if (sub === undefined || person === undefined) throw new SignInRefusedError('the sign-in for this authorization is not known here any more; start again from your MCP client');
    const clientId = String(interaction.params.client_id ?? '');
    const client = await this.#provider.Client.find(clientId);
    if (client === undefined) throw new SignInRefusedError('the client of this authorization is not registered any more');
    const details = interaction.prompt.details;
    const grants = this.#options.config.scopeGrants;
    const asked: Record<string, string[]> = {};
    const withheld = new Set<string>();
    const withheldByResource: Record<string, string[]> = {};
    const keep = (resource: string, scopes: readonly string[]) => {
      const permitted = scopes.filter((scope) => mayBeGranted(scope, person, grants));
      const refused = scopes.filter((scope) => !permitted.includes(scope));
      if (permitted.length > 0) asked[resource] = [...new Set([...(asked[resource] ?? []), ...permitted])];
      if (refused.length > 0) withheldByResource[resource] = [...new Set([...(withheldByResource[resource] ?? []), ...refused])];
      for (const scope of refused) withheld.add(scope);
    };
    keep('', (details.missingOIDCScope as string[] | undefined) ?? []);
    for (const [resource, scopes] of Object.entries((details.missingResourceScopes as Record<string, string[]> | undefined) ?? {})) keep(resource, scopes);
    const trusted = this.#options.config.trustedClients.includes(clientId) || (this.#options.builtInClients ?? []).some((builtIn) => builtIn.clientId === clientId);
    const redirectUri = String(interaction.params.redirect_uri ?? '');
    const fromDocument = (client as unknown as { clientIdMetadataDocument?: boolean }).clientIdMetadataDocument === true;
    return {
      clientId,
      ...(client.clientName !== undefined && { clientName: client.clientName }),
      clientOrigin: fromDocument ? new URL(clientId).host : (URL.parse(redirectUri)?.host ?? redirectUri),
      verifiedByDocument: fromDocument,
      person,
      scopes: asked,
      withheld: [...withheld],
      withheldByResource,
      automatic: trusted || (await this.#consents.covers(sub, clientId, asked)),
      redirectUri,
    };
  }

  /** Records the grant the person allowed (or that was automatic) and remembers it. Returns its id. */
  async grant(interaction: InteractionView, request: ConsentRequest, automatic: boolean): Promise<string> {
    const { Grant } = this.#provider;
    const grant = (interaction.grantId === undefined ? undefined : await Grant.find(interaction.grantId)) ?? new Grant({ accountId: request.person.sub, clientId: request.clientId });
    for (const [resource, scopes] of Object.entries(request.scopes)) {
      if (resource === '') grant.addOIDCScope(scopes.join(' '));
      else grant.addResourceScope(resource, scopes.join(' '));
    }
    // Withheld scopes are rejected in the grant: otherwise the authorization server finds them still
    // missing and asks for consent again, in a loop, for a person who may not have them.
    for (const [resource, scopes] of Object.entries(request.withheldByResource)) {
      if (resource === '') grant.rejectOIDCScope(scopes.join(' '));
      else grant.rejectResourceScope(resource, scopes.join(' '));
    }
    const claims = (interaction.prompt.details.missingOIDCClaims as string[] | undefined) ?? [];
    if (claims.length > 0) grant.addOIDCClaims(claims);
    const grantId = await grant.save();
    await this.#consents.remember(request.person.sub, request.clientId, request.scopes);
    this.#options.audit({ event: automatic ? 'consent-automatic' : 'consented', sub: request.person.sub, clientId: request.clientId, scopes: [...new Set(Object.values(request.scopes).flat())] });
    return grantId;
  }

  /**
   * The consent form's token: an HMAC of the interaction and the person, so a form made elsewhere
   * (another site, another interaction, another person) is refused even where a cookie would pass.
   */
  formToken(uid: string, sub: string): string {
    return createHmac('sha256', this.#formKey).update(`${uid}\n${sub}`, 'utf8').digest('base64url');
  }

  formTokenMatches(uid: string, sub: string, token: string): boolean {
    const expected = Buffer.from(this.formToken(uid, sub), 'utf8');
    const given = Buffer.from(token, 'utf8');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** For the audit trail: the person declined. */
  declined(request: ConsentRequest): void {
    this.#options.audit({ event: 'consent-denied', sub: request.person.sub, clientId: request.clientId });
  }

  async close(): Promise<void> {
    this.#keys.stop();
  }

  #build(): void {
    const { config } = this.#options;
    const provider = createAuthorizationServer({
      issuer: this.issuer,
      signIn: config,
      resources: this.#options.resources,
      store: this.#options.store,
      sealer: this.#sealer,
      people: this.#people,
      signingKeys: this.#keys.privateJwks,
      fetch: metadataDocumentFetch(config.clientMetadataDocuments) as NonNullable<Configuration['fetch']>,
      allowMetadataHost: (host) => metadataHostAllowed(host, config.clientMetadataDocuments),
      errorPage: this.#options.errorPage,
      ...(this.#options.builtInClients && { builtInClients: this.#options.builtInClients }),
    });
    signInAuditEvents(provider, this.#options.audit, this.#options.clientAddress);
    provider.on('server_error', (_ctx: KoaContextWithOIDC, error: unknown) => this.#options.onError(error, 'the authorization server failed a request'));
    this.#provider = provider;
  }

  #rebuild(): void {
    try {
      this.#build();
    } catch (error) {
      this.#options.onError(error, 'the authorization server could not take the new signing keys; it goes on with the old ones');
    }
  }
}

function pendingKey(state: string): string {
  return `pending:${state}`;
}
