// A 2026-07-28 request describes its client in `params._meta`: protocol version and capabilities
// (required), client info and log level (optional). This reads that envelope into a Caller, or
// says which rule it breaks, with the code the spec gives for it.
import type { Principal } from '../../auth/principal.js';
import { randomUUID } from 'node:crypto';
import type { Caller } from '../caller.js';
import type { SpanParent } from '../../observe/tracing/tracing.js';
import { catalogueError } from '../../protocol/error-catalogue.js';
import { RpcError, rpcError } from '../errors.js';
import { isJsonObject, type JsonObject } from '../../protocol/json.js';
import { isLogLevel } from '../sessions/log-levels.js';
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


/** What the transport knows of a 2026 request beyond its envelope. */
export interface ModernRequestFacts {
  readonly requestId?: string | undefined;
  readonly parentSpan?: SpanParent | undefined;
}

/**
 * A 2026 request's key among the requests in flight: unique in this process (a random prefix and a
 * counter; a UUID per request cost more than everything else the envelope needs).
 */
const KEY_PREFIX = `r:${randomUUID().slice(0, 8)}:`;
let keyCounter = 0;

/** `endpoint`: the configured endpoint the request came in on; undefined: the default one. */
export function readEnvelope(params: JsonObject | undefined, principal: Principal | undefined, endpoint?: string, facts: ModernRequestFacts = {}): Caller {
  const meta = params?._meta;
  if (!isJsonObject(meta)) throw rpcError('InvalidParams', '"_meta" must be an object');
  const version = meta[META.protocolVersion];
  if (typeof version !== 'string') throw rpcError('InvalidParams', `_meta["${META.protocolVersion}"] must be a string`);
  if (!isModernVersion(version)) {
    throw RpcError.of(catalogueError('UnsupportedProtocolVersion'), { supported: SUPPORTED_VERSIONS, requested: version });
  }
  const capabilities = meta[META.clientCapabilities];
  if (!isJsonObject(capabilities)) {
    throw rpcError('InvalidParams', `_meta["${META.clientCapabilities}"] is required and must be an object`);
  }
  const clientInfo = meta[META.clientInfo];
  if (clientInfo !== undefined && (!isJsonObject(clientInfo) || typeof clientInfo.name !== 'string' || typeof clientInfo.version !== 'string')) {
    throw rpcError('InvalidParams', `_meta["${META.clientInfo}"] must be an object with a name and a version`);
  }
  const logLevel = meta[META.logLevel];
  if (logLevel !== undefined && !isLogLevel(logLevel)) {
    throw rpcError('InvalidParams', `_meta["${META.logLevel}"] must be a log level (debug ... emergency)`);
  }
  keyCounter += 1;
  // One literal of fixed shape (no conditional spreads): it is made for every 2026 request. Its
  // keys are sessionCaller's, in the same order, `session` included: V8 then gives both eras'
  // callers one hidden class, and the code they share stays monomorphic in a gateway serving both.
  return {
    era: 'modern',
    principal,
    protocolVersion: version,
    clientCapabilities: capabilities,
    logLevel: logLevel as string | undefined,
    session: undefined,
    key: `${KEY_PREFIX}${keyCounter}`,
    requestId: facts.requestId,
    endpoint,
    parentSpan: facts.parentSpan,
  };
}
