// A person called a tool (read a resource, got a prompt) of a server where they have not connected
// their own account (credentials.connection): ask them, in the form their client understands.
// - A 2025-11-25 client that declared URL elicitation (`capabilities.elicitation.url`) gets the
//   spec's URLElicitationRequiredError (-32042) with the connect link; when the person has
//   connected, the gateway sends notifications/elicitation/complete to that session and the
//   client retries.
// - A 2026-07-28 client that declared it gets `input_required` with a URL-mode elicitation/create
//   (that revision has no -32042 and no elicitationId); its retry with the sealed state makes the
//   call again (modern/connect-rounds.ts).
// - Any other client gets, for a tool call, a tool result with `isError` whose text says what to do
//   and holds the link (a model shows it to the person); for a resource or prompt, -32004 with the
//   link in the message and in `data.url`.
import type { ConnectionRequiredError } from '../../credentials/errors.js';
import type { JsonObject } from '../../protocol/json.js';
import type { Caller } from '../caller.js';
import { RpcError, rpcError } from '../errors.js';

/** The key of the one input request a 2026 client is asked to connect with. */
export const CONNECT_INPUT_KEY = 'connect';
/** The 2026 methods that may answer input_required; any other request gets the link in words. */
const ASKING_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);

export type AskToConnect =
  /** The link in words (tools/call), or input_required (2026): the answer is a result. */
  | { readonly kind: 'result'; readonly result: JsonObject; readonly input: boolean }
  /** -32042 (2025 with URL elicitation: `elicitationId` names it) or -32004 with `data.url`. */
  | { readonly kind: 'error'; readonly error: RpcError; readonly elicitationId?: string };

export function askToConnect(needed: ConnectionRequiredError, caller: Caller, method: string): AskToConnect {
  const renew = needed.reason === 'needs-reconnect';
  if (takesUrlElicitation(caller)) {
    const message = connectMessage(needed.server, renew);
    if (takesUrlInput(caller, method)) {
      const elicit = { method: 'elicitation/create', params: { mode: 'url', url: needed.connectUrl, message } };
      return { kind: 'result', result: { resultType: 'input_required', inputRequests: { [CONNECT_INPUT_KEY]: elicit } }, input: true };
    }
    if (caller.era === 'legacy') {
      const error = rpcError('UrlElicitationRequired', needed.server, renew);
      const elicitations = [{ mode: 'url', elicitationId: needed.elicitationId, url: needed.connectUrl, message }];
      return { kind: 'error', error: new RpcError(error.code, error.message, { elicitations }), elicitationId: needed.elicitationId };
    }
  }
  const text = renew
    ? `Your connection to ${needed.server} has expired. Open this link in your browser to connect again, then ask again: ${needed.connectUrl}`
    : `This tool works with your own account on ${needed.server}, which is not connected yet. Open this link in your browser to connect it, then ask again: ${needed.connectUrl}`;
  if (method === 'tools/call') return { kind: 'result', result: { content: [{ type: 'text', text }], isError: true }, input: false };
  const error = rpcError('UpstreamConnectionRequired', needed.server, needed.connectUrl, renew);
  return { kind: 'error', error: new RpcError(error.code, error.message, { server: needed.server, reason: 'connect', url: needed.connectUrl }) };
}

/** What the person reads beside the link (the elicitation's `message`). */
function connectMessage(server: string, renew: boolean): string {
  return renew
    ? `Your connection to ${server} has expired: open the link to connect your account there again.`
    : `${server} works with your own account there: open the link to connect it.`;
}

/** A 2026 client asked for a URL through input_required: it declared URL elicitation, and the method may answer so. */
export function takesUrlInput(caller: Caller, method: string): boolean {
  return caller.era === 'modern' && ASKING_METHODS.has(method) && takesUrlElicitation(caller);
}

/** URL-mode elicitation is declared as `elicitation: { url: {} }` (2025-11-25 and 2026-07-28). */
export function takesUrlElicitation(caller: Caller): boolean {
  const elicitation = caller.clientCapabilities.elicitation;
  return typeof elicitation === 'object' && elicitation !== null && 'url' in elicitation;
}

/**
 * The caller as one that takes no URL elicitation: a 2026 client that declined to open the link,
 * or was asked often enough, is answered with the link in words. Same keys in the same order as
 * every Caller (caller.ts).
 */
export function withoutUrlElicitation(caller: Caller): Caller {
  const { elicitation, ...others } = caller.clientCapabilities;
  const kept = typeof elicitation === 'object' && elicitation !== null ? Object.fromEntries(Object.entries(elicitation).filter(([mode]) => mode !== 'url')) : undefined;
  const clientCapabilities = kept !== undefined && Object.keys(kept).length > 0 ? { ...others, elicitation: kept } : others;
  return {
    era: caller.era,
    principal: caller.principal,
    protocolVersion: caller.protocolVersion,
    clientCapabilities,
    logLevel: caller.logLevel,
    session: caller.session,
    key: caller.key,
    requestId: caller.requestId,
    endpoint: caller.endpoint,
    parentSpan: caller.parentSpan,
  };
}
