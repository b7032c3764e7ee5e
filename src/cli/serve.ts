// Runs the gateway until SIGTERM or SIGINT, then drains it. A second signal means the user has
// stopped waiting for the drain: exit at once, with 1, since in-flight work was cut short.
import type { Config } from '../config/schema.js';
import { runGateway } from '../main.js';
import type { Logger } from '../observe/logger.js';
import type { ReloadSource } from '../reload.js';

const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** Resolves with the process exit code once the gateway has stopped (or could not start). */
export async function serveUntilSignalled(config: Config, logger: Logger, reload?: ReloadSource): Promise<number> {
  // Listening before startup means a signal during startup waits for it and then shuts down
  // cleanly, rather than killing the process with upstream children half started.
  const stopRequested = firstStopSignal(logger);
  // A promise rejection nobody handled is a bug to fix, not a reason to drop every client's
  // session and stream: it is logged loudly and the gateway keeps serving.
  process.on('unhandledRejection', (reason) => {
    logger.error({ err: reason instanceof Error ? { message: reason.message, stack: reason.stack } : String(reason) }, 'unhandled promise rejection');
  });
  let gateway;
  try {
    gateway = await runGateway(config, { logger, ...(reload && { reload }) });
  } catch (error) {
    logger.fatal({ err: error }, 'gateway failed to start');
    return 1;
  }

  const signal = await stopRequested;
  logger.info({ signal }, 'shutting down');
  try {
    await gateway.close(signal);
    logger.info('stopped');
    return 0;
  } catch (error) {
    logger.error({ err: error }, 'shutdown failed');
    return 1;
  }
}

function firstStopSignal(logger: Logger): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (received: NodeJS.Signals): void => {
      for (const name of STOP_SIGNALS) process.off(name, onSignal);
      for (const name of STOP_SIGNALS) process.once(name, onSecondSignal);
      resolve(received);
    };
    const onSecondSignal = (received: NodeJS.Signals): void => {
      logger.warn({ signal: received }, 'second signal: exiting without waiting for shutdown');
      logger.flush();
      process.exit(1);
    };
    for (const name of STOP_SIGNALS) process.on(name, onSignal);
  });
}
