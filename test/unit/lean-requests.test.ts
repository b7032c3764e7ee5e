// The gateway's own request path on a 2025 connection (lean-requests.ts): its requests are found
// again by the number in their id, and an answer or a progress update counts only when it carries
// that id exactly as it was sent. The transport is an in-memory twin: what is checked here is
// LeanRequests' bookkeeping, which the integration tests drive through real upstreams.
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { CancelSource } from '../../src/protocol/cancellation.js';
import { LeanRequests } from '../../src/upstream/lean-requests.js';
import type { ProgressUpdate } from '../../src/upstream/types.js';

class RecordingTransport implements Transport {
  readonly sent: JSONRPCMessage[] = [];
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  passedOn: JSONRPCMessage[] = [];

  constructor() {
    // What the SDK's Protocol would have installed: whatever LeanRequests does not take reaches it.
    this.onmessage = (message) => this.passedOn.push(message);
  }

  async start(): Promise<void> {}
  async close(): Promise<void> {}
  async send(message: JSONRPCMessage): Promise<void> {
    this.sent.push(message);
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
