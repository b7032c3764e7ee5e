// initialize: a 2025 client's first request, which the gateway answers itself. The params are
// checked, the upstreams' first connections awaited, the session stored (ending the principal's
// sessions its cap on live ones pushes out), and the answer is what the gateway offers as one
// server (description.ts).
import type { Principal } from '../../auth/principal.js';
import type { Logger } from '../../observe/logger.js';
import type { SessionRecord, SessionStore } from '../../session/store.js';
import { GATEWAY_IMPLEMENTATION } from '../../version.js';
import { rpcErrors } from '../errors.js';
import type { InitializeOutcome } from '../gateway-types.js';
import { negotiateProtocolVersion } from './initialize.js';
import { isJsonObject, type JsonObject } from '../../protocol/json.js';
import { errorResponse, resultResponse, type JsonRpcRequest } from '../../protocol/json-rpc.js';

export interface SessionStartDeps {
  /** Waits for the upstreams' first connection attempts (once). */
  settle(): Promise<void>;
  /** The principal's policy key, kept in the record; undefined without a policy. */
  readonly accessKey: ((principal: Principal | undefined) => string) | undefined;
  readonly store: SessionStore;
  /** At most this many live sessions per principal (config sessions.maxPerPrincipal); absent: no cap. */
  readonly principalCap: number | undefined;
  /** Ends sessions the store dropped for the cap (session-ending.ts, `ended`). */
  ended(session: SessionRecord): Promise<void>;
  describe(): { capabilities: JsonObject; instructions: string | undefined };
  readonly logger: Logger;
}

export async function startSession(
  request: JsonRpcRequest,
  principal: Principal | undefined,
  sessionId: string,
  deps: SessionStartDeps,
  endpoint?: string,
): Promise<InitializeOutcome> {
  const params = request.params ?? {};
  const clientInfo = params.clientInfo;
  if (!isJsonObject(clientInfo) || typeof clientInfo.name !== 'string' || typeof clientInfo.version !== 'string') {
    return { response: errorResponse(request.id, rpcErrors.invalidParams('"clientInfo" needs a name and a version').toJson()) };
  }
  if (params.capabilities !== undefined && !isJsonObject(params.capabilities)) {
    return { response: errorResponse(request.id, rpcErrors.invalidParams('"capabilities" must be an object').toJson()) };
  }
  await deps.settle();

  const protocolVersion = negotiateProtocolVersion(params.protocolVersion);
  const session: SessionRecord = {
    id: sessionId,
    ...(principal !== undefined && { principal: principal.sub }),
    ...(deps.accessKey && { accessKey: deps.accessKey(principal) }),
    ...(endpoint !== undefined && { endpoint }),
    protocolVersion,
    clientInfo: clientInfo as SessionRecord['clientInfo'],
    clientCapabilities: (params.capabilities as JsonObject | undefined) ?? {},
    subscriptions: [],
    upstreamSessions: {},
    createdAt: Date.now(),
  };
  const evicted = await deps.store.create(session, deps.principalCap === undefined ? {} : { principalCap: deps.principalCap });
  for (const pushedOut of evicted) {
    deps.logger.info(
      { session: pushedOut.id.slice(0, 8), principal: pushedOut.principal, cap: deps.principalCap },
      'session ended: its principal started one more than sessions.maxPerPrincipal allows',
    );
    // Not awaited: the new session's answer does not wait on the old one's upstream DELETEs.
    deps.ended(pushedOut).catch((error: unknown) =>
      deps.logger.warn({ session: pushedOut.id.slice(0, 8), err: error instanceof Error ? error.message : String(error) }, 'a session pushed out by the cap was not ended everywhere'),
    );
  }

  const { capabilities, instructions } = deps.describe();
  const result: JsonObject = {
    protocolVersion,
    capabilities,
    serverInfo: { ...GATEWAY_IMPLEMENTATION, title: 'Switchboard MCP gateway' },
    ...(instructions !== undefined && { instructions }),
  };
  deps.logger.info({ session: session.id.slice(0, 8), client: clientInfo.name, protocolVersion, ...(endpoint !== undefined && { endpoint }) }, 'session initialized');
  return { response: resultResponse(request.id, result), session };
}
