// Which era an upstream connection negotiated, as the gateway needs to know it: a 2026 upstream is
// told each caller's capabilities and log level per request, and may answer input_required.
import type { Upstream } from '../../upstream/types.js';

/** The first revision with the per-request envelope and input_required results. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

export function speaksModern(upstream: Pick<Upstream, 'info'>): boolean {
  return upstream.info?.era === 'modern';
}
