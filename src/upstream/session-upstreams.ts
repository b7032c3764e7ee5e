// Upstream connections made for one session (`isolation: session`): the same supervised
// connection as a shared one, started when the session first needs it, under a logger that names
// the session, and for HTTP continuing the upstream session the session record remembers; and the
// DELETE that ends such an upstream session once its gateway session is over.
import { isStdioUpstream, type Config } from '../config/schema.js';
import type { Logger } from '../observe/logger.js';
import type { ChallengeListener } from './challenges.js';
import { endUpstreamSession } from './end-session.js';
import { lowerCased } from './http-body.js';
import { SupervisedUpstream } from './supervised-upstream.js';
import type { CallerCredential, Upstream } from './types.js';

export interface SessionUpstreamFactory {
  /**
   * A started upstream for one session; `resume` is an HTTP upstream session id to continue,
   * `credential` the caller's own (per-user credentials).
   */
  create(server: string, sessionId: string, resume: string | undefined, credential?: () => CallerCredential): Upstream;
  /** The upstream session id an HTTP connection got, once connected. */
  sessionIdOf(upstream: Upstream): string | undefined;
  /**
   * Ends an HTTP upstream session (DELETE), within END_UPSTREAM_SESSION_TIMEOUT_MS. Never rejects:
   * an upstream that refuses or does not answer expires the session itself.
   */
  end(server: string, upstreamSessionId: string, options?: { credential?: CallerCredential; protocolVersion?: string }): Promise<void>;
}

export function sessionUpstreamFactory(config: () => Config, logger: Logger, onAuthChallenge?: ChallengeListener): SessionUpstreamFactory {
  return {
    create(server, sessionId, resume, credential) {
      // Own keys only: a server named "toString" must not find Object.prototype's.
      const servers = config().mcpServers;
      const serverConfig = Object.hasOwn(servers, server) ? servers[server] : undefined;
      if (!serverConfig) throw new Error(`no server "${server}" in the config`);
      const upstream = new SupervisedUpstream(server, serverConfig, logger.child({ session: sessionId.slice(0, 8) }), {
        ...(resume !== undefined && { resumeSessionId: resume }),
        // A session's own process is not pinged: it lives only as long as the session uses it.
        ping: false,
        keepsUpstreamSession: true,
        ...(credential && { credential }),
        ...(onAuthChallenge && { onAuthChallenge }),
      });
      upstream.start();
      return upstream;
    },
    sessionIdOf(upstream) {
      return upstream.info?.sessionId;
    },
    async end(server, upstreamSessionId, { credential, protocolVersion } = {}) {
      const servers = config().mcpServers;
      const serverConfig = Object.hasOwn(servers, server) ? servers[server] : undefined;
      if (!serverConfig || isStdioUpstream(serverConfig)) return;
      // Lower case, so the caller's Authorization replaces a configured one instead of going next to it.
      const headers = { ...lowerCased(serverConfig.headers), ...lowerCased(credential?.headers ?? {}) };
      const log = logger.child({ server, upstreamSession: upstreamSessionId.slice(0, 8) });
      try {
        const status = await endUpstreamSession({ url: serverConfig.url, headers, sessionId: upstreamSessionId, ...(protocolVersion !== undefined && { protocolVersion }) });
        log.debug({ status }, 'upstream session ended (DELETE)');
      } catch (error) {
        log.debug({ err: error instanceof Error ? error.message : String(error) }, 'upstream session not ended: the DELETE failed');
      }
    },
  };
}
