// The one definition of what `update` does to a record, shared by both stores so they cannot drift.
import type { SessionPatch, SessionRecord } from './store.js';

const PATCHABLE_FIELDS = ['logLevel', 'subscriptions', 'upstreamSessions', 'used'] as const satisfies readonly (keyof SessionPatch)[];

/**
 * Returns `record` with each patch field replaced wholesale, except `upstreamSessions`, which is
 * merged key by key: replicas record their own servers' upstream sessions concurrently, each from
 * its own (possibly older) copy of the record, and one must not erase another's entry. Fields that
 * are absent or undefined in the patch keep their value: JSON drops undefined, so honouring it here
 * would make the memory store and the Redis store disagree. Only the patchable fields are read, so
 * a caller cannot rewrite the id or the principal through a cast.
 */
export function applySessionPatch(record: SessionRecord, patch: SessionPatch): SessionRecord {
  const changes: SessionPatch = {};
  for (const field of PATCHABLE_FIELDS) {
    if (patch[field] !== undefined) Object.assign(changes, { [field]: patch[field] });
  }
  const upstreamSessions = changes.upstreamSessions && { ...record.upstreamSessions, ...changes.upstreamSessions };
  return { ...record, ...changes, ...(upstreamSessions && { upstreamSessions }) };
}
