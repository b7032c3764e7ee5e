// Readable log lines on a terminal, JSON lines everywhere else: the choice, and what a readable
// line holds (the real logger writing to a stream the test reads).
import { Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { chooseLogFormat } from '../../src/observe/log-format.js';
import { createLogger, preformattedLines } from '../../src/observe/logger.js';

function prettyCapture(): { logger: ReturnType<typeof createLogger>; text: () => string } {
  let text = '';
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      text += chunk.toString('utf8');
      callback();
    },
  });
  // Colours or not (FORCE_COLOR, NO_COLOR), the words are the same.
  return { logger: createLogger({ level: 'debug', destination, format: 'pretty' }), text: () => stripVTControlCharacters(text) };
}

describe('the log format', () => {
  it('is readable on a terminal and JSON when stdout is a pipe or a file', () => {
    expect(chooseLogFormat(undefined, true)).toBe('pretty');
    expect(chooseLogFormat(undefined, false)).toBe('json');
    expect(chooseLogFormat('', true)).toBe('pretty');
  });

  it('is what LOG_FORMAT says, terminal or not', () => {
    expect(chooseLogFormat('json', true)).toBe('json');
    expect(chooseLogFormat('JSON', true)).toBe('json');
    expect(chooseLogFormat('pretty', false)).toBe('pretty');
  });

  it('refuses a LOG_FORMAT it does not know, naming the ones it does', () => {
    expect(() => chooseLogFormat('text', false)).toThrow('LOG_FORMAT must be json or pretty, not "text"');
  });
});

describe('a readable log line', () => {
  it('shows the time, level and message on one line, with the fields after them', () => {
    const { logger, text } = prettyCapture();
    logger.warn({ server: 'search', attempt: 2 }, 'upstream restarting');
    const lines = text().trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: upstream restarting \{"server":"search","attempt":2\}$/);
    expect(text()).not.toContain('"pid"');
  });

  it('keeps secrets out, in the fields and in a child logger’s bindings', () => {
    const { logger, text } = prettyCapture();
    logger.info({ headers: { Authorization: 'Bearer top-secret-1' }, token: 'top-secret-2' }, 'configured');
    logger.child({ redisUrl: 'redis://:top-secret-3@redis:6379' }).info('connected');
    expect(text()).not.toContain('top-secret');
    expect(text()).toContain('INFO: configured {"headers":{"Authorization":"[redacted]"},"token":"[redacted]"}');
    expect(text()).toMatch(/INFO: connected \{"redisUrl":"\[redacted\]"\}/);
  });

  it('is written for the lines the gateway formats itself, as audit lines are', () => {
    const { logger, text } = prettyCapture();
    preformattedLines(logger).info('"audit":true,"method":"tools/call","outcome":"ok"', 'audit');
    expect(text()).toMatch(/INFO: audit \{"audit":true,"method":"tools\/call","outcome":"ok"\}\n$/);
  });
});
