// Which session a request to an MCP path belongs to, by the transport's rules (2025-11-25): a
// supported MCP-Protocol-Version if one is sent, an Mcp-Session-Id, and a session that exists for
// this principal on this endpoint. For both ways in (request-head.ts): the node:http fast path for
// POSTs, Hono's routes for GET and DELETE.
import { isSupportedProtocolVersion } from '../gateway/sessions/initialize.js';
import type { Principal } from '../auth/principal.js';
import { isWellFormedSessionId } from '../session/session-id.js';
import type { SessionRecord, SessionStore } from '../session/store.js';
import type { Refusal } from './request-head.js';
import { catalogueRefusal } from '../protocol/error-catalogue.js';

export const SESSION_HEADER = 'mcp-session-id';
export const PROTOCOL_VERSION_HEADER = 'mcp-protocol-version';

const SESSION_REQUIRED: Refusal = Object.freeze(catalogueRefusal('SessionIdRequired'));
const SESSION_NOT_FOUND: Refusal = Object.freeze(catalogueRefusal('SessionNotFound'));

/** The session the headers name, or the refusal of the request. */
export async function findSession(
  store: SessionStore,
  header: (name: string) => string | undefined,
  principal: Principal | undefined,
  endpoint: string | undefined,
): Promise<SessionRecord | Refusal> {
  const version = header(PROTOCOL_VERSION_HEADER);
  if (version !== undefined && !isSupportedProtocolVersion(version)) {
    return catalogueRefusal('ProtocolVersionHeaderUnsupported', version.slice(0, 40));
  }
  const id = header(SESSION_HEADER);
  if (id === undefined || id === '') return SESSION_REQUIRED;
  const session = isWellFormedSessionId(id) ? await store.get(id) : undefined;
  // Another principal's session, or one started on another endpoint, is answered exactly like an
  // unknown one: it does not exist for them, or there.
  if (!session || session.principal !== principal?.sub || session.endpoint !== endpoint) return SESSION_NOT_FOUND;
  return session;
}

export function isRefusal(value: SessionRecord | Refusal): value is Refusal {
  return 'status' in value && 'code' in value;
}
