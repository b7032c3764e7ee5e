// A 2026 upstream asks for client input by answering input_required (MRTR); a 2025 client is asked
// with real server-to-client requests on its session. This turns the one into the other: each
// input request is put to the client, and the upstream call is retried with the answers and the
// upstream's own requestState, until it completes or the rounds run out.
import { rpcError } from '../errors.js';
import { isJsonObject, type JsonObject } from '../../protocol/json.js';
import type { UpstreamRetry } from './upstream-params.js';

/** An upstream that keeps asking is a loop, not a conversation. */
export const DEFAULT_MAX_INPUT_ROUNDS = 8;

export interface InputRequest {
  readonly method: string;
  readonly params?: JsonObject;
}

export function isInputRequired(result: JsonObject): boolean {
  return result.resultType === 'input_required';
}

/** The input requests of an input_required result, in the order the upstream listed them. */
export function inputRequestsOf(result: JsonObject): [string, InputRequest][] {
  const requests = result.inputRequests;
  if (!isJsonObject(requests)) return [];
  const entries: [string, InputRequest][] = [];
  for (const [key, request] of Object.entries(requests)) {
    if (!isJsonObject(request) || typeof request.method !== 'string') continue;
    entries.push([key, { method: request.method, ...(isJsonObject(request.params) && { params: request.params }) }]);
  }
  return entries;
}

export async function completeInputRounds(
  first: JsonObject,
  {
    server,
    maxRounds,
    ask,
    retry,
  }: {
    server: string;
    maxRounds: number;
    ask: (request: InputRequest) => Promise<JsonObject>;
    retry: (answers: UpstreamRetry) => Promise<JsonObject>;
  },
): Promise<JsonObject> {
  let result = first;
  for (let round = 1; isInputRequired(result); round += 1) {
    if (round > maxRounds) {
      throw rpcError('InputRoundsExceeded', server, maxRounds);
    }
    const requests = inputRequestsOf(result);
    const answers = await Promise.all(requests.map(async ([key, request]) => [key, await ask(request)] as const));
    const requestState = typeof result.requestState === 'string' ? result.requestState : undefined;
    result = await retry({ inputResponses: Object.fromEntries(answers), ...(requestState !== undefined && { requestState }) });
  }
  return result;
}
