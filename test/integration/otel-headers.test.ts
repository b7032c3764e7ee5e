// OTEL_EXPORTER_OTLP_HEADERS through the command line, as a deployment sets it: an entry that does
// not parse (a credential pasted without its name) is a warning that names the variable and the
// entry's position, never the entry; the entries that parse still reach the collector.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, writeConfigFile, type GatewayProcess } from '../support/gateway-process.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { rawPost } from '../support/raw-http.js';

const SECRET = 'Bearer s3cr3t-collector-token';

describe('a malformed OTEL_EXPORTER_OTLP_HEADERS entry', () => {
  let receiver: OtlpReceiver;
  let gateway: GatewayProcess;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    gateway = await startGatewayProcess(writeConfigFile({ server: { host: '127.0.0.1' } }), {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_HEADERS: `x-scope-orgid=platform,${SECRET}`,
      OTEL_BSP_SCHEDULE_DELAY: '10',
    });
  }, 60_000);

  afterAll(async () => {
    await gateway?.stop();
    await receiver?.stop();
  });

  it('is a warning naming the variable and its position, and the other entries still reach the collector', async () => {
    expect(gateway.logs).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: 'OTEL_EXPORTER_OTLP_HEADERS: entry 2 is not name=value (no "="): ignored' }),
    );
    await rawPost(gateway.url, { jsonrpc: '2.0', id: 1, method: 'ping' });
    await receiver.waitFor((spans) => spans.length > 0);
    expect(receiver.requests[0]?.headers['x-scope-orgid']).toBe('platform');
  });

  it('never shows the entry in the log', async () => {
    await gateway.stop();
    expect(JSON.stringify(gateway.logs)).not.toContain('s3cr3t');
    expect(gateway.stderr.join('')).not.toContain('s3cr3t');
  });
});
