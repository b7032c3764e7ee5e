// A person called a tool (read a resource, got a prompt) of a server where they have not connected
// their own account (credentials.connection): ask them, in the form their client understands.
// - A client that declared URL elicitation (`capabilities.elicitation.url`, 2025-11-25) gets the
//   spec's URLElicitationRequiredError (-32042) with the connect link; when the person has
//   connected, the gateway sends notifications/elicitation/complete and the client retries.
// - Any other client gets, for a tool call, a tool result with `isError` whose text says what to do
//   and holds the link (a model shows it to the person); for a resource or prompt, -32004 with the
//   link in the message and in `data.url`.
import type { ConnectionRequiredError } from '../../credentials/errors.js';
import type { JsonObject } from '../../protocol/json.js';
import type { Caller } from '../caller.js';
import { RpcError, rpcError } from '../errors.js';

export type AskToConnect = { readonly result: JsonObject } | { readonly error: RpcError };

export function askToConnect(needed: ConnectionRequiredError, caller: Caller, method: string): AskToConnect {
  const renew = needed.reason === 'needs-reconnect';
  if (takesUrlElicitation(caller)) {
    const error = rpcError('UrlElicitationRequired', needed.server, renew);
    return {
      error: new RpcError(error.code, error.message, {
        elicitations: [{ mode: 'url', elicitationId: needed.elicitationId, url: needed.connectUrl, message: error.message }],
      }),
    };
  }
  const text = renew
    ? `Your connection to ${needed.server} has expired. Open this link in your browser to connect again, then ask again: ${needed.connectUrl}`
    : `This tool works with your own account on ${needed.server}, which is not connected yet. Open this link in your browser to connect it, then ask again: ${needed.connectUrl}`;
  if (method === 'tools/call') return { result: { content: [{ type: 'text', text }], isError: true } };
  const error = rpcError('UpstreamConnectionRequired', needed.server, needed.connectUrl, renew);
  return { error: new RpcError(error.code, error.message, { server: needed.server, reason: 'connect', url: needed.connectUrl }) };
}

/** URL-mode elicitation is declared as `elicitation: { url: {} }` (2025-11-25). */
export function takesUrlElicitation(caller: Caller): boolean {
  const elicitation = caller.clientCapabilities.elicitation;
  return typeof elicitation === 'object' && elicitation !== null && 'url' in elicitation;
}
