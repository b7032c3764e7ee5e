// A real gateway for tests: the config a user would write, validated by the real loader, served
// by runGateway on a free loopback port, with its log lines kept for assertions.
import { Writable } from 'node:stream';
import { parseConfigText } from '../../src/config/load.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { runGateway, type RunningGateway } from '../../src/main.js';
import { createLogger } from '../../src/observe/logger.js';

export interface TestGateway extends RunningGateway {
  /** Parsed JSON log lines, in order. */
  readonly logs: Record<string, unknown>[];
}

export interface TestGatewayOptions {
  readonly pageSize?: number;
  readonly logLevel?: string;
}

export async function startGateway(config: ConfigInput, options: TestGatewayOptions = {}): Promise<TestGateway> {
  const withTestServer: ConfigInput = { ...config, server: { host: '127.0.0.1', port: 0, ...config.server } };
  const parsed = parseConfigText(JSON.stringify(withTestServer), 'json', {});
  const logs: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() !== '') logs.push(JSON.parse(line) as Record<string, unknown>);
      }
      callback();
    },
  });
  const logger = createLogger({ level: options.logLevel ?? 'info', destination });
  const gateway = await runGateway(parsed, { logger, ...(options.pageSize !== undefined && { pageSize: options.pageSize }) });
  return Object.assign(gateway, { logs });
}
