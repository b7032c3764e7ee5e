// An OTLP collector that does not answer: one warning in the log, then the spans are dropped. A
// real exporter sends to a closed port and goes through its own retries, which take seconds: why
// this is not with the in-memory exporter's tests in test/unit/otel-tracing.test.ts.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observe/logger.js';
import { createOtelTracing } from '../../src/observe/tracing/otel-tracing.js';
import type { TracingSettings } from '../../src/observe/tracing/settings.js';

const SETTINGS: TracingSettings = {
  endpoint: 'http://127.0.0.1:1/v1/traces',
  protocol: 'http/protobuf',
  headers: {},
  serviceName: 'switchboard-test',
  sampler: { parentBased: true, ratio: 1 },
};

describe('export failures', () => {
  it('are one warning in the log, and the spans are dropped', async () => {
    const lines: Record<string, unknown>[] = [];
    let wrote: () => void = () => {};
    const written = new Promise<void>((resolve) => (wrote = resolve));
    const destination = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
        wrote();
        callback();
      },
    });
    // Nothing listens on port 1: every export is refused.
    const tracing = createOtelTracing(SETTINGS, { logger: createLogger({ level: 'info', destination }), exportDelayMs: 10 });
    tracing.startSpan('POST /mcp', 'server', {}).end();
    await written;
    tracing.startSpan('POST /mcp', 'server', {}).end();
    await tracing.shutdown();
    expect(lines.filter((line) => line.msg === 'trace export failed; spans are dropped until the collector answers')).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn', spans: 1 });
  });
});
