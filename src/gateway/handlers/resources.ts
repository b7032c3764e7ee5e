// resources/read, subscribe and unsubscribe: route the exposed URI to its upstream and its own URI.
import type { MethodHandler } from './handler-context.js';
import { ERRORS } from '../../protocol/error-catalogue.js';
import { rpcErrors } from '../errors.js';
import { UpstreamRpcError } from '../../upstream/errors.js';
import { exposeReadUris } from '../catalogue/rewrite-uris.js';
import { routeUri } from '../calls/routing.js';
import { isPrefixed } from './calls.js';

export const readResource: MethodHandler = async (params, context) => {
  if (typeof params.uri !== 'string') throw rpcErrors.invalidParams('"uri" must be a string');
  const target = routeUri(context.view, context.routing, params.uri);
  context.trace.server = target.server;
  context.trace.name = target.uri;
  let result;
  try {
    result = await context.forward(target.server, 'resources/read', { ...params, uri: target.uri });
  } catch (error) {
    throw asResourceNotFound(error, params.uri);
  }
  return isPrefixed(context, target.server) ? exposeReadUris(result, target.server) : result;
};

/**
 * Upstreams report a missing resource as -32002 (2025 servers), as -32602 with the URI in its data
 * (the v2 SDK, and the 2026-07-28 spec), or as -32602 "Resource ... not found" (the v1 SDK's
 * McpServer). The protocol versions this gateway speaks say -32002, so the client gets that, with
 * its own URI, whatever the upstream's era.
 */
function asResourceNotFound(error: unknown, exposedUri: string): unknown {
  if (!(error instanceof UpstreamRpcError)) return error;
  const data = error.data as { uri?: unknown } | undefined;
  const notFound =
    error.code === ERRORS.ResourceNotFound.code ||
    (error.code === ERRORS.InvalidParams.code && (typeof data?.uri === 'string' || /not found/i.test(error.message)));
  return notFound ? rpcErrors.unknownResource(exposedUri) : error;
}

export const subscribeResource: MethodHandler = async (params, context) => {
  const session = context.caller.session;
  if (!session) throw rpcErrors.methodNotFound('resources/subscribe');
  if (typeof params.uri !== 'string') throw rpcErrors.invalidParams('"uri" must be a string');
  const target = routeUri(context.view, context.routing, params.uri);
  if (context.subscriptions.retain(target.server, target.uri, session.id)) {
    try {
      await context.forward(target.server, 'resources/subscribe', { ...params, uri: target.uri });
    } catch (error) {
      context.subscriptions.release(target.server, target.uri, session.id);
      throw error;
    }
  }
  const subscriptions = new Set(session.subscriptions);
  subscriptions.add(params.uri);
  await context.updateSession({ subscriptions: [...subscriptions] });
  return {};
};

export const unsubscribeResource: MethodHandler = async (params, context) => {
  const session = context.caller.session;
  if (!session) throw rpcErrors.methodNotFound('resources/unsubscribe');
  if (typeof params.uri !== 'string') throw rpcErrors.invalidParams('"uri" must be a string');
  const target = routeUri(context.view, context.routing, params.uri);
  await context.updateSession({ subscriptions: session.subscriptions.filter((uri) => uri !== params.uri) });
  if (context.subscriptions.release(target.server, target.uri, session.id)) {
    await context.forward(target.server, 'resources/unsubscribe', { ...params, uri: target.uri });
  }
  // The subscription may be held by the replica that served the subscribe: it lets go there too.
  await context.releaseElsewhere(target.server, target.uri);
  return {};
};
