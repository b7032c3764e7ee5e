// One credential source per server with a `credentials` block, made when a config comes into
// force and kept while that server's block is the same object (a reload makes new ones). Token
// exchange shares one cache across servers: the store's, so that every replica reuses a token
// any of them obtained.
import { isStdioUpstream, type UpstreamConfig } from '../config/schema.js';
import type { Logger } from '../observe/logger.js';
import { perUserSource } from './per-user-source.js';
import type { CredentialSource, ServerCredentials } from './types.js';

export interface CredentialSourcesOptions {
  readonly logger: Logger;
  /** The token exchange source of a server, with the cache of the store in use. */
  readonly tokenExchange: (server: string, config: NonNullable<NonNullable<UpstreamConfig['credentials']>['tokenExchange']>) => CredentialSource;
  /** The connection source of a server (its connector, by server name and URL). */
  readonly connection: (server: string, url: string, config: NonNullable<NonNullable<UpstreamConfig['credentials']>['connection']>) => CredentialSource;
}

export class CredentialSources {
  readonly #made = new WeakMap<object, ServerCredentials>();

  constructor(private readonly options: CredentialSourcesOptions) {}

  /** The server's credentials; the schema guarantees the block is whole (credentials.ts). */
  of(name: string, server: UpstreamConfig): ServerCredentials {
    const credentials = server.credentials;
    if (!credentials) throw new Error(`server "${name}" has no credentials block`);
    let made = this.#made.get(credentials);
    if (!made) {
      const source = credentials.tokenExchange
        ? this.options.tokenExchange(name, credentials.tokenExchange)
        : credentials.connection && !isStdioUpstream(server)
          ? this.options.connection(name, server.url, credentials.connection)
          : perUserSource(name, isStdioUpstream(server) ? 'stdio' : 'http', credentials.perUser!, { logger: this.options.logger });
      made = { source, whenMissing: credentials.whenMissing };
      this.#made.set(credentials, made);
    }
    return made;
  }
}
