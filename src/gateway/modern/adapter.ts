// The 2026-07-28 era adapter of the gateway: one stateless request in, one answer out. It reads the
// envelope into a Caller, serves the request through the same Gateway.serve as a 2025 session's,
// and shapes the answer for 2026 (resultType, serverInfo, cache hints, error codes). When an
// upstream needs input from the client, the answer is input_required with state sealed by the
// gateway: a 2026 upstream's own question is relayed (its state wrapped in ours, nothing kept
// here); a 2025 upstream's server-to-client request parks the call until the retry (parked-calls.ts).
import type { Principal } from '../../auth/principal.js';
import { isStoreUnavailable } from '../../session/store-unavailable.js';
import type { Caller } from '../caller.js';
import type { Cancellation } from '../../protocol/cancellation.js';
import type { SpanParent } from '../../observe/tracing/tracing.js';
import { catalogueError } from '../../protocol/error-catalogue.js';
import { RpcError, rpcError } from '../errors.js';
import type { Gateway, Served } from '../gateway.js';
import { serveOptions } from '../gateway-types.js';
import { inputRequestsOf, isInputRequired } from '../calls/input-rounds.js';
import { isJsonObject, type JsonObject } from '../../protocol/json.js';
import { errorResponse, resultResponse, type JsonRpcRequest, type JsonRpcResponse } from '../../protocol/json-rpc.js';
import type { RelatedChannel } from '../calls/related-channel.js';
import { missingCapability } from '../calls/server-requests.js';
import { withoutUrlElicitation } from '../calls/ask-to-connect.js';
import { modernError } from './codes.js';
import { readEnvelope, type ModernRequestFacts } from './envelope.js';
import { ModernCall } from './modern-call.js';
import { toResumeOutcome, type ParkedCalls, type ResumeOutcome } from './parked-calls.js';
import type { RequestStateSealer, RequestBinding } from './request-state.js';
import { completeResult, inputRequiredResult, modernResponse, type CachePolicy } from './shape.js';

/** Methods of earlier revisions that a request with a 2026 envelope does not have. */
const REMOVED_METHODS = new Set(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe']);
/** A connect round's retry waits this long at most for the person to finish in their browser. */
const CONNECT_WAIT_MS = 30_000;
/** Each attempt is a request served (audited, counted): the first after a second, then less often. */
const CONNECT_POLL_MS = 1_000;
const CONNECT_POLL_MAX_MS = 5_000;
/** After this many rounds of asking to open a URL, the client is answered as one without URL elicitation. */
const MAX_URL_ROUNDS = 3;
/** The methods that may answer input_required (MRTR). */
const INTERACTIVE_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);

export interface ModernAnswer {
  readonly response: JsonRpcResponse;
  /**
   * True when the request was refused before it was served (a bad envelope or state, a removed
   * method, a capability the client lacks): the transport answers those with an HTTP error status.
   */
  readonly refused: boolean;
}

export interface ModernRequestOptions {
  /** The request's own stream: progress and (when asked for) log messages. */
  readonly related?: RelatedChannel;
  /** Fires when the client closes the request's stream: that cancels the request. */
  readonly cancel?: Cancellation;
  /** The transport's id of the request, for the lines logged about it. */
  readonly requestId?: string;
  /** The configured endpoint the request came in on; absent: the default one. */
  readonly endpoint?: string;
  /** What the request's spans go under; absent: tracing is off. */
  readonly parentSpan?: SpanParent;
}

export interface ModernAdapterOptions {
  readonly gateway: Gateway;
  readonly sealer: RequestStateSealer;
  readonly parked: ParkedCalls;
}

export class ModernAdapter {
  constructor(private readonly options: ModernAdapterOptions) {}

  /** The Caller a 2026 request (on `endpoint`; absent: the default one) describes, or the refusal of its envelope. */
  caller(request: JsonRpcRequest, principal: Principal | undefined, endpoint?: string, facts: ModernRequestFacts = {}): Caller | ModernAnswer {
    try {
      return readEnvelope(request.params, principal, endpoint, facts);
    } catch (error) {
      if (error instanceof RpcError) return refuse(request, error);
      throw error;
    }
  }

  /** The input schema of a tool the principal may call, for checking its mirrored Mcp-Param-* headers. */
  toolInputSchema(exposedName: string, principal: Principal | undefined, endpoint?: string): JsonObject | undefined {
    const schema = this.options.gateway.toolFor(exposedName, principal, endpoint)?.inputSchema;
    return isJsonObject(schema) ? schema : undefined;
  }

  async handle(request: JsonRpcRequest, principal: Principal | undefined, options: ModernRequestOptions = {}): Promise<ModernAnswer> {
    const caller = this.caller(request, principal, options.endpoint, options);
    if ('response' in caller) return caller;
    if (REMOVED_METHODS.has(request.method)) {
      return refuse(request, rpcError('MethodNotInVersion', request.method, caller.protocolVersion));
    }
    const params = request.params ?? {};
    const invalidResponses = inputResponsesProblem(params.inputResponses);
    if (invalidResponses !== undefined) return refuse(request, rpcError('InvalidParams', invalidResponses));
    const binding: RequestBinding = { sub: principal?.sub ?? '', method: request.method, params, endpoint: options.endpoint };
    if (params.requestState !== undefined) return this.#retry(caller, request, binding, options);
    if (!INTERACTIVE_METHODS.has(request.method)) {
      const served = await this.options.gateway.serve(caller, request, serveOptions(options.related, undefined, options.cancel));
      return this.#final(request, binding, caller, served);
    }
    return this.#fresh(caller, request, binding, options, 0);
  }

  /** An interactive request served from the start; `urlRound`: how often the client was asked to open a URL already. */
  async #fresh(caller: Caller, request: JsonRpcRequest, binding: RequestBinding, options: ModernRequestOptions, urlRound: number): Promise<Answered> {
    const call = new ModernCall(caller.clientCapabilities);
    call.start((serveOptions) => this.options.gateway.serve(caller, request, serveOptions));
    const outcome = await call.next(options.related, options.cancel);
    if (outcome.kind === 'done') return this.#final(request, binding, caller, outcome.served, urlRound);
    const park = outcome.kind === 'input' ? this.options.parked.park(call) : undefined;
    return this.#answer(request, binding, caller, toResumeOutcome(outcome, call.round), park);
  }

  /**
   * The retry of a call that asked the client to open a URL: the call is made again. A person who
   * accepted to connect an account may still be in their browser, so while the client waits
   * (CONNECT_WAIT_MS at most) it is made again, more and more rarely, until the connection is
   * there, then they are asked again (an upstream's own -32042 is not polled: each attempt is a
   * call to it). A client that declined, or was asked MAX_URL_ROUNDS times, is answered as one
   * without URL elicitation (the link in words, or the error).
   */
  async #urlRetry(caller: Caller, request: JsonRpcRequest, binding: RequestBinding, state: { readonly round: number; readonly poll: boolean }, inputResponses: JsonObject, options: ModernRequestOptions): Promise<Answered> {
    const replies = Object.values(inputResponses);
    const accepted = replies.length > 0 && replies.every((reply) => isJsonObject(reply) && reply.action === 'accept');
    const asking = accepted && state.round < MAX_URL_ROUNDS ? caller : withoutUrlElicitation(caller);
    const until = Date.now() + (asking === caller && state.poll ? CONNECT_WAIT_MS : 0);
    for (let wait = CONNECT_POLL_MS; ; wait = Math.min(wait * 2, CONNECT_POLL_MAX_MS)) {
      const answer = await this.#fresh(asking, request, binding, options, state.round);
      if (answer.askedByUrl !== true || Date.now() + wait > until) return answer;
      if (!(await pause(wait, options.cancel))) return answer;
    }
  }

  async #retry(caller: Caller, request: JsonRpcRequest, binding: RequestBinding, options: ModernRequestOptions): Promise<ModernAnswer> {
    const params = request.params ?? {};
    const unsealed = this.options.sealer.unseal(params.requestState, binding);
    if (!unsealed.ok) return refuse(request, rpcError('InvalidParams', unsealed.reason));
    const inputResponses = isJsonObject(params.inputResponses) ? params.inputResponses : {};
    const state = unsealed.body;
    if (state.kind === 'url') return this.#urlRetry(caller, request, binding, state, inputResponses, options);
    if (state.kind === 'relay') {
      const answers = { inputResponses, ...(state.upstreamState !== undefined && { requestState: state.upstreamState }) };
      const served = await this.options.gateway.serve(caller, request, serveOptions(options.related, undefined, options.cancel, { server: state.server, answers }));
      return this.#final(request, binding, caller, served);
    }
    const { parked } = this.options;
    const outcome =
      state.replica === parked.replicaId
        ? await parked.resumeLocal(state.park, state.round, inputResponses, options.related, options.cancel)
        : await parked.resumeRemote(state.replica, state.park, state.round, inputResponses, options.cancel).catch((error: unknown): ResumeOutcome | RpcError => {
            // The bus did not carry the retry: the call still waits there, and the client may retry (503).
            if (isStoreUnavailable(error)) throw error;
            return error instanceof RpcError ? error : rpcError('PeerReplicaFailed', String(error));
          });
    if (outcome instanceof RpcError) return { response: errorResponse(request.id, modernError(outcome.toJson())), refused: false };
    return this.#answer(request, binding, caller, outcome, outcome.kind === 'input' ? state.park : undefined, state.replica);
  }

  #answer(request: JsonRpcRequest, binding: RequestBinding, caller: Caller, outcome: ResumeOutcome, park: string | undefined, replica = this.options.parked.replicaId): ModernAnswer {
    switch (outcome.kind) {
      case 'done':
        return this.#final(request, binding, caller, { response: outcome.response, trace: outcome.server === undefined ? {} : { server: outcome.server } });
      case 'input': {
        const requestState = this.options.sealer.seal({ kind: 'park', replica, park: park ?? '', round: outcome.round }, binding);
        return { response: resultResponse(request.id, inputRequiredResult(outcome.requests, requestState)), refused: false };
      }
      case 'missing-capability':
        return refuse(request, missingCapabilityError(outcome.capability));
      case 'cancelled':
        return { response: errorResponse(request.id, modernError(catalogueError('RequestCancelled', 'the request'))), refused: false };
      case 'invalid':
        return refuse(request, rpcError('InvalidParams', outcome.reason));
      case 'gone':
        return refuse(request, rpcError('StaleRequestState'));
    }
  }

  /** A served request's answer: a 2026 upstream's own input_required is relayed, else the result as 2026 shapes it. */
  #final(request: JsonRpcRequest, binding: RequestBinding, caller: Caller, served: Served, urlRound = 0): Answered {
    const { response, trace } = served;
    if ('result' in response && isInputRequired(response.result)) {
      const result = response.result;
      // The gateway's own question (ask-to-connect.ts, upstream-url-elicitations.ts): the retry makes the call again.
      if (trace.urlElicited !== undefined) {
        const requestState = this.options.sealer.seal({ kind: 'url', server: trace.urlElicited.server, round: urlRound + 1, poll: trace.urlElicited.poll }, binding);
        return { response: resultResponse(request.id, inputRequiredResult(isJsonObject(result.inputRequests) ? result.inputRequests : {}, requestState)), refused: false, askedByUrl: true };
      }
      const inputRequests = isJsonObject(result.inputRequests) ? result.inputRequests : undefined;
      for (const [, input] of inputRequestsOf(result)) {
        const capability = missingCapability(input.method, caller.clientCapabilities);
        if (capability !== undefined) return refuse(request, missingCapabilityError(capability));
      }
      const upstreamState = typeof result.requestState === 'string' ? result.requestState : undefined;
      const requestState = this.options.sealer.seal({ kind: 'relay', server: trace.server ?? '', ...(upstreamState !== undefined && { upstreamState }) }, binding);
      return { response: resultResponse(request.id, inputRequiredResult(inputRequests ?? {}, requestState)), refused: false };
    }
    return { response: modernResponse(request.id, response, (result) => completeResult(request.method, result, () => this.#cachePolicy())), refused: false };
  }

  #cachePolicy(): CachePolicy {
    const { gateway } = this.options;
    return { listsFreshForMs: gateway.listsFreshForMs(), privateViews: gateway.viewsDependOnPrincipal };
  }
}

/** The adapter's answer, and whether it asks the client to open a URL (a URL round). */
type Answered = ModernAnswer & { readonly askedByUrl?: boolean };

/** Resolves true after `ms`, or false as soon as the client gives up. */
function pause(ms: number, cancel: Cancellation | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      stop?.();
      resolve(true);
    }, ms);
    // Registered after the timer: a client already gone is heard at once, and clears it.
    const stop = cancel?.onCancel(() => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}

/**
 * What is wrong with a retry's inputResponses as a whole: it must be a map. Its entries are checked
 * by whoever asked (a parked call here, a 2026 upstream there); keys nobody asked for are ignored.
 */
function inputResponsesProblem(inputResponses: unknown): string | undefined {
  if (inputResponses === undefined || isJsonObject(inputResponses)) return undefined;
  return '"inputResponses" must be an object';
}

function refuse(request: JsonRpcRequest, error: RpcError): ModernAnswer {
  return { response: { jsonrpc: '2.0', id: request.id, error: error.toJson() }, refused: true };
}

function missingCapabilityError(capability: string): RpcError {
  return RpcError.of(catalogueError('MissingRequiredClientCapability', capability), { requiredCapabilities: { [capability]: {} } });
}

