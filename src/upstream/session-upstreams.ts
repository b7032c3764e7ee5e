// Upstream connections made for one session (`isolation: session`): the same supervised
// connection as a shared one, started when the session first needs it, under a logger that names
// the session, and for HTTP continuing the upstream session the session record remembers.
import type { Config } from '../config/schema.js';
import type { Logger } from '../observe/logger.js';
import type { ChallengeListener } from './challenges.js';
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
  };
}
