// A 2026-07-28 request describes its client in `params._meta`: protocol version and capabilities
// (required), client info and log level (optional). This reads that envelope into a Caller, or
// says which rule it breaks, with the code the spec gives for it.
import type { Principal } from '../../auth/principal.js';
import { randomUUID } from 'node:crypto';
import type { Caller } from '../caller.js';
import { RpcError } from '../errors.js';
import { isJsonObject, type JsonObject } from '../json.js';
import { isLogLevel } from '../log-levels.js';
import { ModernCode } from './codes.js';
import { isModernVersion, SUPPORTED_VERSIONS } from './versions.js';

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** The version a request's envelope names, if it has one: what tells a 2026 request from a 2025 one. */
export function envelopeVersion(params: unknown): unknown {
  if (!isJsonObject(params) || !isJsonObject(params._meta)) return undefined;
  return params._meta[META.protocolVersion];
}


export function readEnvelope(params: JsonObject | undefined, principal: Principal | undefined): Caller {
  const meta = params?._meta;
  if (!isJsonObject(meta)) throw new RpcError(-32602, 'Invalid params: "_meta" must be an object');
  const version = meta[META.protocolVersion];
  if (typeof version !== 'string') throw new RpcError(-32602, `Invalid params: _meta["${META.protocolVersion}"] must be a string`);
  if (!isModernVersion(version)) {
    throw new RpcError(ModernCode.UnsupportedProtocolVersion, 'Unsupported protocol version', { supported: SUPPORTED_VERSIONS, requested: version });
  }
  const capabilities = meta[META.clientCapabilities];
  if (!isJsonObject(capabilities)) {
    throw new RpcError(-32602, `Invalid params: _meta["${META.clientCapabilities}"] is required and must be an object`);
  }
  const clientInfo = meta[META.clientInfo];
  if (clientInfo !== undefined && (!isJsonObject(clientInfo) || typeof clientInfo.name !== 'string' || typeof clientInfo.version !== 'string')) {
    throw new RpcError(-32602, `Invalid params: _meta["${META.clientInfo}"] must be an object with a name and a version`);
  }
  const logLevel = meta[META.logLevel];
  if (logLevel !== undefined && !isLogLevel(logLevel)) {
    throw new RpcError(-32602, `Invalid params: _meta["${META.logLevel}"] must be a log level (debug ... emergency)`);
  }
  return {
    era: 'modern',
    principal,
    protocolVersion: version,
    clientCapabilities: capabilities,
    ...(logLevel !== undefined && { logLevel }),
    key: `r:${randomUUID()}`,
  };
}
