// When an HTTP client gives up on a request (it closed the connection before the response ended),
// as a Cancellation the gateway can listen to. Read from the Node response's own close event rather
// than from the request's AbortSignal, which @hono/node-server makes (an AbortController, on Node 20
// a transferable object) for every request that asks for it: a cost on each call for an event that
// almost never happens.
import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';
import type { Cancellation } from '../protocol/cancellation.js';

export function clientGone(c: Context): Cancellation {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (outgoing) return responseGone(outgoing);
  // Without a Node response (app.request() in tests), the web request's signal says the same.
  const signal = c.req.raw.signal;
  return {
    onCancel(listener) {
      if (signal.aborted) {
        listener();
        return () => {};
      }
      signal.addEventListener('abort', listener, { once: true });
      return () => signal.removeEventListener('abort', listener);
    },
  };
}

/** The client closed the connection before `outgoing` ended (Hono or the fast path). */
export function responseGone(outgoing: ServerResponse): Cancellation {
  return {
    onCancel(listener) {
      if (outgoing.destroyed && !outgoing.writableFinished) {
        listener();
        return () => {};
      }
      // on/off rather than once: every 2026 call listens, and once() wraps each listener in
      // another closure. 'close' is emitted once per response anyway.
      const onClose = () => {
        if (!outgoing.writableFinished) listener();
      };
      outgoing.on('close', onClose);
      return () => outgoing.off('close', onClose);
    },
  };
}
