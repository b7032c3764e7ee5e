// Waiting for an upstream connection made for one request's sake (a session's own connection):
// ready, or the reason it is not. A connection that failed to start is an error for the request
// now, not a wait for the next attempt.
import { UpstreamUnavailableError } from './errors.js';
import type { Upstream } from './types.js';

export function waitUntilReady(upstream: Upstream, timeoutMs: number): Promise<void> {
  if (upstream.state === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new UpstreamUnavailableError(upstream.name, upstream.status().lastError ?? 'it did not start in time'));
    }, timeoutMs);
    const off = upstream.onStateChange((state) => {
      if (state === 'ready') {
        clearTimeout(timer);
        off();
        resolve();
      } else if (state === 'failed') {
        // A session's own process that cannot start is an error for this request, not a wait.
        clearTimeout(timer);
        off();
        // (An HTTP upstream that refused the caller's credential says so: a challenge, not an outage.)
        reject(upstream.unavailability() ?? new UpstreamUnavailableError(upstream.name, 'it could not start'));
      }
    });
  });
}
