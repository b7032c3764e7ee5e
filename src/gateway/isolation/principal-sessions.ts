// A 2026 request has no session, but a server with `isolation: session` exists to keep one
// caller's upstream state apart from another's. For 2026 callers the unit of isolation is the
// principal: every request of one principal (token `sub`; everyone, when auth is off) shares one
// connection to each such server, kept in a session record of its own so that any replica can
// continue it exactly as it continues a 2025 session's. Its id can never be presented as an
// Mcp-Session-Id (it is not a well-formed one), and nothing is sent to it: no stream reads it.
import { createHash } from 'node:crypto';
import type { Principal } from '../../auth/principal.js';
import type { SessionRecord, SessionStore } from '../../session/store.js';
import { MODERN_PROTOCOL_VERSION } from '../calls/upstream-era.js';

const PREFIX = 'p.';

export function isPrincipalSessionId(id: string): boolean {
  return id.startsWith(PREFIX);
}

export function principalSessionId(principal: Principal | undefined): string {
  return `${PREFIX}${createHash('sha256').update(principal?.sub ?? '').digest('base64url').slice(0, 32)}`;
}

export class PrincipalSessions {
  constructor(private readonly store: SessionStore) {}

  /** The principal's isolation record, made on first use; its idle timeout slides like a session's. */
  async sessionFor(principal: Principal | undefined): Promise<SessionRecord> {
    const id = principalSessionId(principal);
    const existing = await this.store.get(id);
    if (existing) return existing;
    const record: SessionRecord = {
      id,
      ...(principal !== undefined && { principal: principal.sub }),
      protocolVersion: MODERN_PROTOCOL_VERSION,
      clientInfo: { name: '2026-07-28 requests of one principal', version: '' },
      clientCapabilities: {},
      subscriptions: [],
      upstreamSessions: {},
      createdAt: Date.now(),
      // Made by a request, and never a client's to abandon: the full idle timeout, and no cap.
      used: true,
    };
    // Two replicas may make it at once; both records say the same, and the last write stands.
    await this.store.create(record);
    return record;
  }
}
