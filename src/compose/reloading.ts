// Reloading the config in force (on a change of the file, SIGHUP, or the admin window's button):
// what a new config changes in the running gateway, applied in an order that refuses a bad reload
// before anything changed.
import { loadPins, pinningFiles } from '../pinning/load.js';
import type { Logger } from '../observe/logger.js';
import type { ConfiguredSecrets } from '../observe/redact-text.js';
import { startReloading, type Reloading, type ReloadSource } from '../reload.js';
import type { ConfigInForce } from './config-in-force.js';
import type { GatewayCore } from './gateway-core.js';

export function startConfigReloading(reload: ReloadSource, live: ConfigInForce, core: GatewayCore, logger: Logger, secrets: ConfiguredSecrets): Reloading {
  const { upstreams, pinning, catalog, serverLimits, views } = core;
  return startReloading(
    reload,
    {
      current: () => live.current,
      apply: async (next) => {
        // First, so that a lock file that cannot be read refuses the reload before anything changed.
        const nextPins = await loadPins(next);
        const previous = live.current;
        // Before the new upstreams start, whose errors may quote them.
        secrets.add(next);
        live.current = next;
        const changes = await upstreams.reconcile(previous, next);
        pinning.configure(next.pinning, nextPins);
        catalog.reconfigure(views.catalogServers(), next.namespace);
        serverLimits.configure(next.limits.servers);
        return changes;
      },
      companionFiles: pinningFiles,
    },
    logger,
  );
}
