// On a shared connection there is one log level per upstream for all sessions: it is set to the
// most verbose level any session asked for, and each session's stream filters to its own level.
import type { Logger } from '../../observe/logger.js';
import type { Upstream } from '../../upstream/types.js';
import { atLeast, isLogLevel, type LogLevel } from './log-levels.js';

export class UpstreamLogLevels {
  /** The level last sent to each upstream on its current connection. */
  readonly #sent = new Map<string, LogLevel>();

  constructor(private readonly logger: Logger) {}

  /** A session asked for `level`: upstreams that would filter out messages it wants are told. */
  request(upstreams: readonly Upstream[], level: string): void {
    if (!isLogLevel(level)) return;
    for (const upstream of upstreams) {
      if (upstream.state !== 'ready' || upstream.info?.capabilities.logging === undefined) continue;
      const current = this.#sent.get(upstream.name);
      if (current !== undefined && atLeast(level, current)) continue;
      this.#sent.set(upstream.name, level);
      upstream.request('logging/setLevel', { level }).catch((error: unknown) => {
        this.logger.warn({ server: upstream.name, err: error instanceof Error ? error.message : String(error) }, 'could not set the upstream log level');
      });
    }
  }

  /** A reconnected upstream starts from its own default again. */
  forget(server: string): void {
    this.#sent.delete(server);
  }
}
