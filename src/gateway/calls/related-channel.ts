// Messages that belong to one client request (progress, log messages, server-to-client requests)
// travel back on that request's own response stream. The HTTP layer provides the channel; the
// gateway only says what to send.
import type { JsonRpcNotification, JsonRpcRequest } from '../../protocol/json-rpc.js';

export interface RelatedChannel {
  send(message: JsonRpcNotification | JsonRpcRequest): void;
}
