// The JSON-RPC response in an MCP POST's answer, which a Streamable HTTP server may send either as
// one JSON body or as an SSE stream that carries related messages first and the response last
// (server-everything always streams; the gateway answers JSON unless something related goes out).
import { createParser } from 'eventsource-parser';

export interface JsonRpcAnswer {
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error?: { readonly code?: unknown; readonly message?: unknown };
}

/** The response to request `id` in `body`; throws when there is none. */
export function readAnswer(contentType: string | undefined, body: string, id: number | string): JsonRpcAnswer {
  const answer = contentType?.startsWith('text/event-stream') ? fromEventStream(body, id) : (JSON.parse(body) as JsonRpcAnswer);
  if (answer?.id !== id) throw new Error(`no response to request ${id} in: ${body.slice(0, 200)}`);
  return answer;
}

function fromEventStream(body: string, id: number | string): JsonRpcAnswer | undefined {
  let answer: JsonRpcAnswer | undefined;
  const parser = createParser({
    onEvent(event) {
      // Empty data is a priming event (an id to resume from), not a message.
      if (answer !== undefined || event.data === '') return;
      const message = JSON.parse(event.data) as JsonRpcAnswer;
      // Notifications (progress, logs) and server-to-client requests may come first; the response is the one with our id.
      if (message.id === id && ('result' in message || 'error' in message)) answer = message;
    },
  });
  parser.feed(body);
  return answer;
}
