// An upstream's stderr is its log: each line becomes one of ours, under the server's name, so it is
// never mixed with protocol (stdout) and never lost in a terminal nobody watches.
import { createInterface } from 'node:readline';
import type { Readable, Stream } from 'node:stream';
import type { Logger } from '../observe/logger.js';

const MAX_LINE_CHARS = 4_000;

export function pipeLinesToLog(stream: Stream, logger: Logger): void {
  const lines = createInterface({ input: stream as Readable, crlfDelay: Infinity });
  lines.on('line', (line) => {
    if (line.trim() === '') return;
    logger.info(line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line);
  });
  lines.on('error', () => {});
}
