// JSON-RPC messages off an undici response body: a JSON body at once, an event stream event by
// event as it arrives (a call's progress and the server's own requests come before its answer).
// No fetch Response, no web streams and no schema check per message (the SDK transport's costs:
// docs/decisions/0004-http-upstream-transport-on-undici.md): the body is a Node stream decoded as
// UTF-8 chunk by chunk, events are cut by eventsource-parser's callback parser, and meaning is
// left to whoever reads the message.
import { StringDecoder } from 'node:string_decoder';
import { createParser } from 'eventsource-parser';
import type { Dispatcher } from 'undici';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { keepResultText } from '../protocol/result-text.js';

export type ResponseBody = Dispatcher.ResponseData['body'];

export interface MessageSink {
  message(message: JSONRPCMessage): void;
  /** A payload that is not a JSON-RPC message: reported, and the stream goes on (as the SDK does). */
  error(error: Error): void;
}

export interface EventStreamSink extends MessageSink {
  /** Each event id, for a reconnect's Last-Event-ID. */
  id?(id: string): void;
  /** The server's `retry:` advice, in ms. */
  retry?(ms: number): void;
}

/** Delivers the message (or each message of a batch) that `text` holds; throws a SyntaxError on bad JSON. */
export function deliverJson(text: string, sink: MessageSink): void {
  const parsed: unknown = JSON.parse(text);
  // A lone answer's result keeps the text it came in, for the response to the client.
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) keepResultText(text, parsed);
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    if (typeof message === 'object' && message !== null && (message as { jsonrpc?: unknown }).jsonrpc === '2.0') sink.message(message as JSONRPCMessage);
    else sink.error(new Error('the server sent JSON that is not a JSON-RPC 2.0 message'));
  }
}

/** Reads the event stream to its end: resolves when the server ends it, rejects when it breaks. */
export function readEventStream(body: ResponseBody, sink: EventStreamSink): Promise<void> {
  const parser = createParser({
    onEvent(event) {
      if (event.id) sink.id?.(event.id);
      // Only `message` events carry JSON-RPC (the transport spec); others are not ours to read.
      if (!event.data || (event.event !== undefined && event.event !== 'message')) return;
      try {
        deliverJson(event.data, sink);
      } catch (error) {
        sink.error(error instanceof Error ? error : new Error(String(error)));
      }
    },
    onRetry: (ms) => sink.retry?.(ms),
  });
  // undici's body ignores setEncoding: a decoder of our own keeps a character split across chunks whole.
  const decoder = new StringDecoder('utf8');
  return new Promise((resolve, reject) => {
    body.on('data', (chunk: Buffer) => parser.feed(decoder.write(chunk)));
    body.once('end', () => resolve());
    body.once('error', reject);
  });
}

/** The media type of a content-type header, without parameters, lower case. */
export function mediaType(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  // As servers write them, asked on every answer: no split, trim or lower-casing to do.
  if (value === 'text/event-stream' || value === 'application/json') return value;
  return value?.split(';', 1)[0]?.trim().toLowerCase();
}

/** One header's value (undici gives a list for a repeated header). */
export function headerValue(header: string | string[] | undefined): string | undefined {
  return Array.isArray(header) ? header[0] : header;
}

/** Header names in lower case, so that a header set later under its canonical name replaces a configured one. */
export function lowerCased(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
