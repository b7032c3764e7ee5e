// While a 2026 request runs, a 2025 upstream may ask its client something (sampling, elicitation,
// roots) as a server-to-client request. A 2026 client cannot take requests: its request answers
// input_required instead, and the upstream's question waits here for the retry's answer.
import type { UpstreamServerRequest } from '../../upstream/types.js';
import { rpcError } from '../errors.js';
import type { InputChannel } from '../calls/in-flight.js';
import type { InputRequest } from '../calls/input-rounds.js';
import type { JsonObject } from '../../protocol/json.js';
import { declaresUrlElicitation, missingCapability } from '../calls/server-requests.js';

interface Question {
  readonly request: InputRequest;
  asked: boolean;
  resolve(result: JsonObject): void;
  reject(error: Error): void;
}

export type CollectorEvent =
  | { readonly kind: 'input'; readonly requests: Readonly<Record<string, InputRequest>> }
  | { readonly kind: 'missing-capability'; readonly capability: string };

const KEY_PREFIX: Readonly<Record<string, string>> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

export class InputCollector {
  readonly channel: InputChannel;
  readonly #questions = new Map<string, Question>();
  #counter = 0;
  #missing: string | undefined;
  #wake: (() => void) | undefined;

  constructor(private readonly capabilities: Readonly<Record<string, unknown>>) {
    this.channel = (request) => this.#ask(request);
  }

  /**
   * Calls `listener` once, when there is something to tell the client: new questions, or one it
   * cannot answer (at once if there is already). Returns how to stop waiting. A callback rather
   * than a promise: every 2026 call waits here, and almost none is ever asked anything.
   */
  whenNext(listener: (event: CollectorEvent) => void): () => void {
    const event = this.#pending();
    if (event) {
      listener(event);
      return () => {};
    }
    const wake = (): void => {
      const pending = this.#pending();
      if (pending === undefined) return;
      this.#wake = undefined;
      listener(pending);
    };
    this.#wake = wake;
    return () => {
      if (this.#wake === wake) this.#wake = undefined;
    };
  }

  /** Why `responses` cannot answer the questions last asked (an answer that is not a result object). */
  problemWith(responses: JsonObject): string | undefined {
    for (const [key, question] of this.#questions) {
      const response = responses[key];
      if (question.asked && response !== undefined && (typeof response !== 'object' || response === null || Array.isArray(response))) {
        return `inputResponses["${key}"] must be an object (the result of ${question.request.method})`;
      }
    }
    return undefined;
  }

  /**
   * The client's answers to the questions last asked. A question left unanswered is asked again
   * in the next round (the spec's "request the missing information again").
   */
  answer(responses: JsonObject): void {
    for (const [key, question] of this.#questions) {
      if (!question.asked) continue;
      const response = responses[key];
      if (typeof response === 'object' && response !== null && !Array.isArray(response)) {
        this.#questions.delete(key);
        question.resolve(response as JsonObject);
      } else {
        question.asked = false;
      }
    }
  }

  /** Refuses every waiting question to its upstream (the call is abandoned). */
  abandon(reason: string): void {
    for (const question of this.#questions.values()) question.reject(rpcError('RequestCancelled', `the ${question.request.method} request`, reason));
    this.#questions.clear();
  }

  #pending(): CollectorEvent | undefined {
    if (this.#missing !== undefined) return { kind: 'missing-capability', capability: this.#missing };
    if (this.#questions.size === 0) return undefined;
    const fresh = [...this.#questions].filter(([, question]) => !question.asked);
    if (fresh.length === 0) return undefined;
    // Everything waiting goes out together, including what the client left unanswered last time.
    const requests: Record<string, InputRequest> = {};
    for (const [key, question] of this.#questions) {
      question.asked = true;
      requests[key] = question.request;
    }
    return { kind: 'input', requests };
  }

  #ask(request: UpstreamServerRequest): Promise<JsonObject> {
    const capability = missingCapability(request.method, this.capabilities);
    if (capability !== undefined) {
      const refusal = rpcError('ClientLacksCapability', request.method, capability);
      // Roots are context a server fetches on its own schedule (as it starts, on roots/list_changed),
      // so on a shared connection a roots/list may land on a call that has nothing to do with it:
      // the upstream is told no, as a 2025 client without roots would tell it, and the call goes on.
      // Sampling and elicitation are steps of the call that asks: it is refused with -32021.
      if (capability === 'roots') return Promise.reject(refusal);
      this.#missing = capability;
      this.#wake?.();
      return Promise.reject(refusal);
    }
    // A URL a client did not say it can open: the upstream is told no, as such a client would.
    if (request.method === 'elicitation/create' && request.params?.mode === 'url' && !declaresUrlElicitation(this.capabilities)) {
      return Promise.reject(rpcError('ClientLacksCapability', request.method, 'elicitation.url'));
    }
    this.#counter += 1;
    const key = `${KEY_PREFIX[request.method] ?? 'input'}-${this.#counter}`;
    return new Promise<JsonObject>((resolve, reject) => {
      this.#questions.set(key, {
        request: { method: request.method, ...(request.params && { params: request.params }) },
        asked: false,
        resolve,
        reject,
      });
      request.signal.addEventListener(
        'abort',
        () => {
          if (this.#questions.delete(key)) reject(rpcError('RequestCancelled', `the ${request.method} request`));
        },
        { once: true },
      );
      this.#wake?.();
    });
  }
}
