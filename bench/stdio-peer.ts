// A stdio MCP server spoken to directly: newline-delimited JSON-RPC over the child's stdin and
// stdout, no SDK. After initialize, any number of requests may be in flight on the one pipe, told
// apart by their ids, which is how a gateway's shared connection uses it too. This is the
// upstream's own capacity, the figure a front over stdio can at best approach.
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

import { spawnTracked, stopChild } from '../test/support/child-process.js';

const CALL_TIMEOUT_MS = 10_000;
const PROTOCOL_VERSION = '2025-11-25';

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
  readonly timer: NodeJS.Timeout;
}

export interface StdioPeer {
  readonly pid: number;
  /** Resolves with the result of one request; rejects on a JSON-RPC error, a timeout or the server's exit. */
  request(method: string, params: Record<string, unknown>): Promise<unknown>;
  stop(): Promise<void>;
}

let lastId = 0;

/** Starts `command args` (its stderr to `logFd`, `env` added to ours) and completes the initialize handshake with it. */
export async function startStdioPeer(command: string, args: readonly string[], logFd: number | 'ignore', env: Record<string, string> = {}): Promise<StdioPeer> {
  const child = spawnTracked(command, args, { stdio: ['pipe', 'pipe', logFd], env: { ...process.env, ...env } });
  const pending = new Map<number, Pending>();
  const failAll = (reason: string): void => {
    for (const [, call] of pending) call.reject(new Error(reason));
    pending.clear();
  };
  child.once('exit', (code, signal) => failAll(`the stdio server exited (code ${code}, signal ${signal})`));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const message = parse(line);
    if (typeof message?.id !== 'number' || !('result' in message || 'error' in message)) return; // notifications, requests to us
    const call = pending.get(message.id);
    if (call === undefined) return;
    pending.delete(message.id);
    clearTimeout(call.timer);
    if (message.error !== undefined) call.reject(new Error(`JSON-RPC error ${JSON.stringify(message.error).slice(0, 200)}`));
    else call.resolve(message.result);
  });

  const peer: StdioPeer = {
    pid: child.pid!,
    request(method, params) {
      const id = (lastId += 1);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${method} ${id}: no answer within ${CALL_TIMEOUT_MS} ms`));
        }, CALL_TIMEOUT_MS);
        pending.set(id, { resolve, reject, timer });
        write(child, { jsonrpc: '2.0', id, method, params });
      });
    },
    stop: () => stopChild(child),
  };
  try {
    await peer.request('initialize', { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'switchboard-bench-stdio', version: '1.0.0' } });
    write(child, { jsonrpc: '2.0', method: 'notifications/initialized' });
  } catch (error) {
    await peer.stop();
    throw error;
  }
  return peer;
}

interface Message {
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error?: unknown;
}

function parse(line: string): Message | undefined {
  try {
    return JSON.parse(line) as Message;
  } catch {
    return undefined; // a stray line on stdout is the server's fault, not a reason to stop the run
  }
}

function write(child: ChildProcess, message: object): void {
  child.stdin!.write(`${JSON.stringify(message)}\n`);
}
