// The gateway's own request path (lean-requests.ts): its requests are found again by the number in
// their id, and an answer or a progress update counts only when it carries that id exactly as it
// was sent; on a 2026-07-28 connection they go out in that era's words (modern-dialect.ts). The
// transport is an in-memory twin: what is checked here is LeanRequests' bookkeeping and wording,
// which the integration tests (eras-matrix, modern-upstream) drive through real upstreams.
import type { JSONRPCMessage, Transport, TransportSendOptions } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { CancelSource } from '../../src/protocol/cancellation.js';
import { UpstreamRpcError } from '../../src/upstream/errors.js';
import { LeanRequests } from '../../src/upstream/lean-requests.js';
import { modernDialect } from '../../src/upstream/modern-dialect.js';
import type { ProgressUpdate } from '../../src/upstream/types.js';

class RecordingTransport implements Transport {
  readonly sent: JSONRPCMessage[] = [];
  readonly sendOptions: (TransportSendOptions | undefined)[] = [];
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  passedOn: JSONRPCMessage[] = [];

  constructor() {
    // What the SDK's Protocol would have installed: whatever LeanRequests does not take reaches it.
    this.onmessage = (message) => this.passedOn.push(message);
  }

  async start(): Promise<void> {}
  async close(): Promise<void> {}
  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    this.sent.push(message);
    this.sendOptions.push(options);
  }

  answer(message: object): void {
    this.onmessage?.(message as JSONRPCMessage);
  }
}

function settledState(promise: Promise<unknown>): Promise<string> {
  return Promise.race([promise.then(() => 'resolved', () => 'rejected'), new Promise<string>((resolve) => setTimeout(() => resolve('pending'), 10))]);
}

describe('lean requests', () => {
  it('are answered only under the id they were sent with, not one that reads as the same number', async () => {
    const transport = new RecordingTransport();
    const lean = new LeanRequests('everything', transport);
    const first = lean.request('tools/call', { name: 'echo' }, { timeoutMs: 10_000 });
    const second = lean.request('tools/call', { name: 'echo' }, { timeoutMs: 10_000 });
    expect(transport.sent.map((message) => (message as { id: string }).id)).toEqual(['sb:1', 'sb:2']);
    for (const id of ['sb:01', 'sb:1.0', 'sb:+1', 'sb: 1']) transport.answer({ jsonrpc: '2.0', id, result: { wrong: id } });
    expect(await settledState(first)).toBe('pending');
    transport.answer({ jsonrpc: '2.0', id: 'sb:2', result: { n: 2 } });
    transport.answer({ jsonrpc: '2.0', id: 'sb:1', result: { n: 1 } });
    expect(await Promise.all([first, second])).toEqual([{ n: 1 }, { n: 2 }]);
    // The SDK sees none of it: every one of those ids was the gateway's to answer or drop.
    expect(transport.passedOn).toEqual([]);
  });

  it('pass on progress under their own token only, and the rest of the traffic to the SDK', async () => {
    const transport = new RecordingTransport();
    const lean = new LeanRequests('everything', transport);
    const updates: ProgressUpdate[] = [];
    const answered = lean.request('tools/call', { name: 'slow' }, { timeoutMs: 10_000, onProgress: (update) => updates.push(update) });
    expect(transport.sent[0]).toMatchObject({ id: 'sb:1', params: { _meta: { progressToken: 'sbp:1' } } });
    transport.answer({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'sbp:01', progress: 9 } });
    transport.answer({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'sbp:1', progress: 1, total: 2 } });
    transport.answer({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hello' } });
    transport.answer({ jsonrpc: '2.0', id: 7, result: {} });
    transport.answer({ jsonrpc: '2.0', id: 'sb:1', result: { done: true } });
    expect(await answered).toEqual({ done: true });
    expect(updates).toEqual([{ progress: 1, total: 2 }]);
    expect(transport.passedOn.map((message) => ('method' in message ? message.method : message.id))).toEqual(['notifications/message', 7]);
  });

  it('tell the upstream, under the id it knows, which request the caller cancelled', async () => {
    const transport = new RecordingTransport();
    const lean = new LeanRequests('everything', transport);
    const cancel = new CancelSource();
    lean.request('tools/call', { name: 'echo' }, { timeoutMs: 10_000 }).catch(() => {});
    const cancelled = lean.request('tools/call', { name: 'slow' }, { timeoutMs: 10_000, cancel });
    cancel.cancel();
    await expect(cancelled).rejects.toThrow(/cancel/i);
    expect(transport.sent[2]).toMatchObject({ method: 'notifications/cancelled', params: { requestId: 'sb:2' } });
    // Its late answer finds nothing waiting, and goes nowhere.
    transport.answer({ jsonrpc: '2.0', id: 'sb:2', result: {} });
    expect(transport.passedOn).toEqual([]);
  });
});

/** The SDK's Streamable HTTP transport, as far as LeanRequests can tell: one stream per request. */
class PerRequestStreamTransport extends RecordingTransport {
  readonly hasPerRequestStream = true;
}

const ENVELOPE = {
  protocolVersion: '2026-07-28',
  clientInfo: { name: 'switchboard', version: '1.0.0' },
  clientCapabilities: { sampling: {} },
};
const ENVELOPE_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'switchboard', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': { sampling: {} },
};

function modernRequests(transport: Transport = new RecordingTransport()): LeanRequests {
  return new LeanRequests('modern', transport, modernDialect(ENVELOPE));
}

describe('lean requests to a 2026-07-28 upstream', () => {
  it('carry the envelope under the caller\'s own _meta keys, which win, and a progress token', async () => {
    const transport = new RecordingTransport();
    const lean = modernRequests(transport);
    const callerMeta = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} }, 'io.modelcontextprotocol/logLevel': 'info', traceparent: '00-abc-def-01' };
    lean.request('tools/call', { name: 'echo', arguments: { message: 'hi' }, _meta: callerMeta }, { timeoutMs: 10_000, onProgress: () => {} }).catch(() => {});
    lean.request('server/discover', undefined, { timeoutMs: 10_000 }).catch(() => {});
    expect(transport.sent[0]).toEqual({
      jsonrpc: '2.0',
      id: 'sb:1',
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: 'hi' }, _meta: { ...ENVELOPE_META, ...callerMeta, progressToken: 'sbp:1' } },
    });
    expect(transport.sent[1]).toEqual({ jsonrpc: '2.0', id: 'sb:2', method: 'server/discover', params: { _meta: ENVELOPE_META } });
    // Over a shared channel (stdio) nothing but the message goes to the transport.
    expect(transport.sendOptions).toEqual([undefined, undefined]);
    // Nothing answers them: fail them now, not as stray rejections seconds after the test.
    lean.close('test over');
  });

  it('read a complete result without its resultType, and an input_required one as the gateway takes it', async () => {
    const transport = new RecordingTransport();
    const lean = modernRequests(transport);
    const complete = lean.request('tools/call', { name: 'echo' }, { timeoutMs: 10_000 });
    const asking = lean.request('tools/call', { name: 'ask' }, { timeoutMs: 10_000 });
    const stateOnly = lean.request('tools/call', { name: 'ask' }, { timeoutMs: 10_000 });
    const serverInfo = { 'io.modelcontextprotocol/serverInfo': { name: 'up', version: '1' } };
    transport.answer({ jsonrpc: '2.0', id: 'sb:1', result: { resultType: 'complete', content: [{ type: 'text', text: 'hi' }], _meta: serverInfo } });
    const inputRequests = { q: { method: 'elicitation/create', params: { message: 'name?' } } };
    transport.answer({ jsonrpc: '2.0', id: 'sb:2', result: { resultType: 'input_required', inputRequests, requestState: 's1', _meta: serverInfo, extra: 1 } });
    transport.answer({ jsonrpc: '2.0', id: 'sb:3', result: { resultType: 'input_required', inputRequests: [], requestState: 's2' } });
    expect(await complete).toEqual({ content: [{ type: 'text', text: 'hi' }], _meta: serverInfo });
    expect(await asking).toEqual({ resultType: 'input_required', inputRequests, requestState: 's1', _meta: serverInfo });
    expect(await stateOnly).toEqual({ resultType: 'input_required', inputRequests: {}, requestState: 's2' });
  });

  it('refuse a result that breaks the era\'s rules, naming what is wrong', async () => {
    const transport = new RecordingTransport();
    const lean = modernRequests(transport);
    const answers = [
      { resultType: undefined, content: [] },
      { resultType: 'incomplete' },
      { resultType: 'input_required', inputRequests: {} },
      [1, 2],
    ];
    const requests = answers.map(() => lean.request('tools/call', { name: 'echo' }, { timeoutMs: 10_000 }));
    answers.forEach((result, index) => transport.answer({ jsonrpc: '2.0', id: `sb:${index + 1}`, result }));
    const errors = await Promise.all(requests.map((request) => request.then(() => undefined, (error: unknown) => error)));
    expect(errors.map((error) => error instanceof UpstreamRpcError && error.code)).toEqual([-32603, -32603, -32603, -32603]);
    expect(errors.map((error) => (error as Error).message)).toEqual([
      expect.stringMatching(/without resultType/),
      expect.stringMatching(/result type .*"incomplete"/),
      expect.stringMatching(/neither inputRequests nor requestState/),
      expect.stringMatching(/not an object/),
    ]);
  });

  it('refuse a method the era deleted without sending it', async () => {
    const transport = new RecordingTransport();
    const lean = modernRequests(transport);
    for (const method of ['ping', 'initialize', 'logging/setLevel', 'resources/subscribe', 'tasks/list', 'roots/list']) {
      await expect(lean.request(method, undefined, { timeoutMs: 10_000 })).rejects.toMatchObject({ code: -32601, message: `Method not found: ${method}` });
    }
    expect(transport.sent).toEqual([]);
    // The Tasks extension's methods, and extension methods, are no era's business.
    lean.request('tasks/get', { taskId: 't' }, { timeoutMs: 10_000 }).catch(() => {});
    lean.request('x-acme/report', undefined, { timeoutMs: 10_000 }).catch(() => {});
    expect(transport.sent.map((message) => (message as { method: string }).method)).toEqual(['tasks/get', 'x-acme/report']);
    lean.close('test over');
  });

  it('cancel over a shared channel with notifications/cancelled, in an envelope', async () => {
    const transport = new RecordingTransport();
    const lean = modernRequests(transport);
    const cancel = new CancelSource();
    const cancelled = lean.request('tools/call', { name: 'slow' }, { timeoutMs: 10_000, cancel });
    cancel.cancel();
    await expect(cancelled).rejects.toThrow(/cancel/i);
    expect(transport.sent[1]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'sb:1', reason: 'cancelled by the client', _meta: ENVELOPE_META },
    });
  });

  it('cancel on a transport with a stream per request by closing that stream, and send its headers with it', async () => {
    const transport = new PerRequestStreamTransport();
    const lean = modernRequests(transport);
    const cancel = new CancelSource();
    const params = { name: 'slow', _meta: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } };
    const cancelled = lean.request('tools/call', params, { timeoutMs: 10_000, cancel, headers: { 'Mcp-Param-Region': 'eu' } });
    const answered = lean.request('tools/call', { name: 'echo' }, { timeoutMs: 10_000 });
    const [first, second] = transport.sendOptions;
    expect(first?.headers).toEqual({ 'Mcp-Param-Region': 'eu', traceparent: params._meta.traceparent });
    expect(second?.headers).toBeUndefined();
    expect(first?.requestSignal?.aborted).toBe(false);
    cancel.cancel();
    await expect(cancelled).rejects.toThrow(/cancel/i);
    expect(first?.requestSignal?.aborted).toBe(true);
    expect(second?.requestSignal?.aborted).toBe(false);
    // The stream's closing is the cancellation: nothing else goes out.
    expect(transport.sent).toHaveLength(2);
    transport.answer({ jsonrpc: '2.0', id: 'sb:2', result: { resultType: 'complete', content: [] } });
    expect(await answered).toEqual({ content: [] });
    // A stream that ends once its answer is in changes nothing.
    second?.onRequestStreamEnd?.();
  });

  it('fail a request at once when its own stream ends before the answer came', async () => {
    const transport = new PerRequestStreamTransport();
    const lean = modernRequests(transport);
    const lost = lean.request('tools/call', { name: 'slow' }, { timeoutMs: 600_000 });
    const kept = lean.request('tools/call', { name: 'echo' }, { timeoutMs: 600_000 });
    transport.sendOptions[0]?.onRequestStreamEnd?.();
    await expect(lost).rejects.toThrow('upstream "modern" is unavailable: the request\'s stream ended before the upstream answered it');
    expect(await settledState(kept)).toBe('pending');
  });
});
