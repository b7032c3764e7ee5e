// One 2026 request in progress, across its rounds. It runs like any request (Gateway.serve), with
// the upstreams' questions collected (input-collector.ts) rather than sent to a stream, and a
// related channel and cancellation that follow whichever HTTP request of the client is current:
// the first POST, then each retry that answers the questions.
import type { JsonObject } from '../../protocol/json.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../../protocol/json-rpc.js';
import type { RelatedChannel } from '../calls/related-channel.js';
import type { Served } from '../gateway.js';
import { serveOptions, type ServeOptions } from '../gateway-types.js';
import type { InputRequest } from '../calls/input-rounds.js';
import { CancelSource, type Cancellation } from '../../protocol/cancellation.js';
import { InputCollector } from './input-collector.js';

export type RoundOutcome =
  | { readonly kind: 'done'; readonly served: Served }
  | { readonly kind: 'input'; readonly requests: Readonly<Record<string, InputRequest>> }
  | { readonly kind: 'missing-capability'; readonly capability: string }
  | { readonly kind: 'cancelled' };

export class ModernCall {
  readonly collector: InputCollector;
  /** Cancels the call itself (upstream too): the client left, or never came back. */
  readonly abort = new CancelSource();
  readonly related: RelatedChannel;
  #target: RelatedChannel | undefined;
  #served: Promise<Served> | undefined;
  /** Which round the client is answering next; a state of another round is stale. */
  round = 0;

  constructor(capabilities: Readonly<Record<string, unknown>>) {
    this.collector = new InputCollector(capabilities);
    this.related = { send: (message: JsonRpcNotification | JsonRpcRequest) => this.#target?.send(message) };
  }

  /** Starts the call once; `serve` is Gateway.serve bound to the caller and request. */
  start(serve: (options: ServeOptions) => Promise<Served>): void {
    this.#served ??= serve(serveOptions(this.related, this.collector.channel, this.abort));
  }

  /**
   * Waits for what the client hears next: the result, or questions. Related messages go to
   * `target` meanwhile; `gone` is the current HTTP request's (its closing cancels the call).
   */
  next(target: RelatedChannel | undefined, gone: Cancellation | undefined): Promise<RoundOutcome> {
    const served = this.#served;
    if (!served) throw new Error('ModernCall.next before start');
    this.#target = target;
    // One promise settled by whichever comes first (the result, questions, the client leaving):
    // every 2026 call passes here, and a race of three promises cost it several allocations.
    return new Promise<RoundOutcome>((resolve, reject) => {
      let settled = false;
      // Assigned once, after `end` may already have run (the outcome can come synchronously): a
      // const there would be read before it is initialised.
      // eslint-disable-next-line prefer-const
      let stopWaiting: (() => void) | undefined;
      // eslint-disable-next-line prefer-const
      let stopListening: (() => void) | undefined;
      const end = (): boolean => {
        if (settled) return false;
        settled = true;
        stopWaiting?.();
        stopListening?.();
        // Between rounds nothing is listening: progress of a parked call has no stream to go to.
        this.#target = undefined;
        return true;
      };
      const settle = (outcome: RoundOutcome): void => {
        if (!end()) return;
        if (outcome.kind === 'cancelled' || outcome.kind === 'missing-capability') this.cancel('the client cancelled the request');
        if (outcome.kind === 'input') this.round += 1;
        resolve(outcome);
      };
      served.then(
        (result) => settle({ kind: 'done', served: result }),
        (error: unknown) => {
          if (end()) reject(error);
        },
      );
      stopWaiting = this.collector.whenNext(settle);
      if (settled) return;
      stopListening = gone?.onCancel(() => settle({ kind: 'cancelled' }));
      if (settled) stopListening?.();
    });
  }

  /** The client's answers to the last round's questions. */
  answer(inputResponses: JsonObject): void {
    this.collector.answer(inputResponses);
  }

  cancel(reason: string): void {
    this.abort.cancel();
    this.collector.abandon(reason);
  }
}
