// oidc-provider ships no type declarations: the part of its API the tests' identity provider
// (team-idp.ts) uses, typed as its documentation describes it. Ambient, so it merges with a fuller
// declaration should src/ add one.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface KoaContextWithOidc {
    readonly req: IncomingMessage;
    readonly res: ServerResponse;
    readonly method: string;
    readonly path: string;
    readonly query: Record<string, string | string[] | undefined>;
    readonly headers: Record<string, string | string[] | undefined>;
    status: number;
    body: unknown;
    set(field: string, value: string): void;
    redirect(url: string): void;
    readonly oidc?: {
      readonly route?: string;
      readonly body?: Record<string, string | string[] | undefined>;
      readonly params?: Record<string, unknown>;
      readonly client?: { readonly clientId: string };
    };
  }

  export type Middleware = (ctx: KoaContextWithOidc, next: () => Promise<void>) => Promise<void>;

  export interface ClientInstance {
    readonly clientId: string;
    redirectUriAllowed(redirectUri: string): boolean;
  }

  export interface InteractionDetails {
    readonly uid: string;
    readonly prompt: { readonly name: string; readonly reasons: readonly string[]; readonly details: Record<string, unknown> };
    readonly params: Record<string, unknown>;
    readonly session?: { readonly accountId?: string };
    readonly grantId?: string;
  }

  export interface GrantInstance {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: readonly string[]): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }

  export interface AdapterPayload {
    readonly [key: string]: unknown;
    readonly grantId?: string;
    readonly userCode?: string;
    readonly uid?: string;
    consumed?: number;
  }

  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    readonly issuer: string;
    proxy: boolean;
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    use(middleware: Middleware): void;
    on(event: string, listener: (...args: unknown[]) => void): void;
    interactionDetails(request: IncomingMessage, response: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(request: IncomingMessage, response: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
    readonly Grant: (new (properties: { clientId: string; accountId: string }) => GrantInstance) & { find(grantId: string): Promise<GrantInstance | undefined> };
    readonly Client: { find(clientId: string): Promise<ClientInstance | undefined> };
  }
}
