// Stream ids say what kind of stream they name, so a reconnect with Last-Event-ID knows whether it
// continues a POST's response stream (which ends with the response) or a standalone GET stream.
import { randomBytes } from 'node:crypto';

export type StreamKind = 'post' | 'get';

export function newStreamId(kind: StreamKind): string {
  return `${kind === 'post' ? 'p' : 'g'}${randomBytes(9).toString('base64url')}`;
}

export function streamKind(streamId: string): StreamKind {
  return streamId.startsWith('p') ? 'post' : 'get';
}

/** How long a client waits before reconnecting a stream that ended without its response. */
export const RECONNECT_DELAY_MS = 1_000;
