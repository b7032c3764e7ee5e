// The protocol revisions the endpoint serves: 2026-07-28 per request (stateless), and the 2025
// revisions and 2024-11-05 through initialize and a session.
import { SUPPORTED_PROTOCOL_VERSIONS } from '../sessions/initialize.js';

export const MODERN_VERSIONS = ['2026-07-28'] as const;

/** Whether `version` is one the endpoint serves statelessly (per request, no session). */
export function isModernVersion(version: unknown): version is string {
  return typeof version === 'string' && (MODERN_VERSIONS as readonly string[]).includes(version);
}

/** Newest first, as server/discover and UnsupportedProtocolVersionError list them. */
export const SUPPORTED_VERSIONS: readonly string[] = [...MODERN_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS];
