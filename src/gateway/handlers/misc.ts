// The methods the gateway answers itself, and completion/complete (routed by its ref).
import type { MethodHandler } from './handler-context.js';
import { rpcErrors } from '../errors.js';
import { isJsonObject } from '../../protocol/json.js';
import { routePrompt, routeTemplateRef } from '../calls/routing.js';
import { SUPPORTED_VERSIONS } from '../modern/versions.js';
import { TASKS_EXTENSION } from '../../protocol/extensions.js';

const LOG_LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

export const ping: MethodHandler = async () => ({});

/** 2026-07-28's server/discover; a 2025 session learnt the same at initialize. */
export const discover: MethodHandler = async (_params, context) => {
  if (context.caller.era !== 'modern') throw rpcErrors.methodNotFound('server/discover');
  // 2026-07-28 has tasks as an extension, not this capability: the gateway bridges it to 2025 upstreams' tasks.
  const described = context.describe();
  const { tasks, ...capabilities } = described.capabilities;
  if (tasks !== undefined) capabilities.extensions = { ...(isJsonObject(capabilities.extensions) ? capabilities.extensions : {}), [TASKS_EXTENSION]: {} };
  const { instructions } = described;
  return { supportedVersions: [...SUPPORTED_VERSIONS], capabilities, ...(instructions !== undefined && { instructions }) };
};

export const setLogLevel: MethodHandler = async (params, context) => {
  if (typeof params.level !== 'string' || !LOG_LEVELS.has(params.level)) {
    throw rpcErrors.invalidParams(`"level" must be one of ${[...LOG_LEVELS].join(', ')}`);
  }
  await context.updateSession({ logLevel: params.level });
  return {};
};

export const complete: MethodHandler = async (params, context) => {
  const ref = params.ref;
  if (!isJsonObject(ref)) throw rpcErrors.invalidParams('"ref" must be an object');
  if (ref.type === 'ref/prompt') {
    if (typeof ref.name !== 'string') throw rpcErrors.invalidParams('"ref.name" must be a string');
    const prompt = routePrompt(context.view, context.routing, ref.name);
    return context.forward(prompt.server, 'completion/complete', { ...params, ref: { ...ref, name: prompt.name } });
  }
  if (ref.type === 'ref/resource') {
    if (typeof ref.uri !== 'string') throw rpcErrors.invalidParams('"ref.uri" must be a string');
    const target = routeTemplateRef(context.view, context.routing, ref.uri);
    return context.forward(target.server, 'completion/complete', { ...params, ref: { ...ref, uri: target.uri } });
  }
  throw rpcErrors.invalidParams('"ref.type" must be "ref/prompt" or "ref/resource"');
};
