// A stdio upstream's wire: newline-delimited JSON-RPC on a child process's stdin and stdout, as the
// client SDK's Transport so the SDK still runs the handshake and the server's own requests. Ours
// rather than the SDK's StdioClientTransport for two costs on every message (bench profile): the
// SDK writes each message with a syscall of its own, where this one gathers the messages of one
// turn of the event loop into one write (50 calls in flight are then a handful); and it checks every
// incoming message against a zod schema, where this one takes any JSON object and leaves meaning
// to whoever reads it (the gateway relays upstream answers as they are, from the text they came in
// where it can: result-text.ts). See docs/decisions/0003-own-stdio-transport.md.
import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { keepResultText } from '../protocol/result-text.js';

export interface StdioSpawn {
  readonly command: string;
  readonly args: readonly string[];
  /** Added to the SDK's safe default environment (PATH, HOME, ...), never the gateway's whole one. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** `pipe`: readable as `stderr` (the server's log); `ignore`: dropped (a probe). */
  readonly stderr: 'pipe' | 'ignore';
}

/** A line longer than this is not a message but a runaway server: the connection is dropped. */
const MAX_LINE_CHARS = 64 * 1024 * 1024;
/** How long a closing server gets after its stdin ends, and again after SIGTERM. */
const CLOSE_GRACE_MS = 2_000;
const CR = 0x0d;
const OPEN_BRACE = 0x7b;

export class LeanStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  /** The child's stderr, readable from construction on (so a reader can attach before start). */
  readonly stderr: PassThrough | undefined;
  #child: ChildProcess | undefined;
  #buffer = '';
  /** Messages sent in this turn of the event loop, not yet written. */
  #batch: string[] = [];
  #closed = false;

  constructor(private readonly spec: StdioSpawn) {
    this.stderr = spec.stderr === 'pipe' ? new PassThrough() : undefined;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.spec.command, [...this.spec.args], {
        env: { ...getDefaultEnvironment(), ...this.spec.env },
        ...(this.spec.cwd !== undefined && { cwd: this.spec.cwd }),
        stdio: ['pipe', 'pipe', this.spec.stderr],
        windowsHide: true,
      });
      this.#child = child;
      child.once('spawn', () => resolve());
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('close', () => this.#ended());
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.setEncoding('utf8');
      child.stdout?.on('data', (chunk: string) => this.#read(chunk));
      if (this.stderr) child.stderr?.pipe(this.stderr);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || this.#closed || stdin.destroyed) return Promise.reject(new Error('Not connected'));
    // The messages of one turn of the event loop leave as one write: gathered here, written once
    // every socket with news in this turn has been read (setImmediate runs right after that poll).
    // nextTick would batch only the writes of one request's own microtasks, and each HTTP request
    // arrives in a callback of its own. Gathered as strings and joined once rather than corked in
    // the stream, which keeps an entry, a callback and a writev slot per message: 0.3 KB less
    // allocated per forwarded call (the bench's allocation column, 24.0 -> 23.7 KB).
    if (this.#batch.length === 0) setImmediate(this.#flush);
    this.#batch.push(JSON.stringify(message));
    if (!stdin.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => stdin.once('drain', () => resolve()));
  }

  /** The turn's messages, one line each, in one write. */
  readonly #flush = (): void => {
    const batch = this.#batch;
    if (batch.length === 0) return;
    this.#batch = [];
    const stdin = this.#child?.stdin;
    // Gone in the meantime: the connection's close fails whatever these messages were for.
    if (!stdin || stdin.destroyed) return;
    stdin.write(`${batch.join('\n')}\n`);
  };

  async close(): Promise<void> {
    const child = this.#child;
    if (!child || this.#closed) return;
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('close', () => resolve());
    });
    const within = (ms: number) => Promise.race([exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms).unref())]);
    this.#flush();
    try {
      child.stdin?.end();
    } catch {
      // Already gone.
    }
    if (await within(CLOSE_GRACE_MS)) return;
    child.kill('SIGTERM');
    if (await within(CLOSE_GRACE_MS)) return;
    child.kill('SIGKILL');
    await exited;
  }

  /** Ends the process at once (a probe, whose verdict is in): resolves once it is gone. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    // 'exit', not 'close': a grandchild (npx's server) may hold the pipes open after the child is gone.
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await Promise.race([gone, new Promise<void>((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref())]);
  }

  /** Lines out of the stream as they complete: each chunk is scanned once, however many lines it holds. */
  #read(chunk: string): void {
    const text = this.#buffer === '' ? chunk : this.#buffer + chunk;
    let start = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
      // A CRLF line ends before its CR.
      const end = newline > start && text.charCodeAt(newline - 1) === CR ? newline - 1 : newline;
      const line = text.slice(start, end);
      start = newline + 1;
      // Blank lines are skipped; a message starts with `{`, and only other lines need the trim.
      if (line.charCodeAt(0) === OPEN_BRACE || line.trim() !== '') this.#deliver(line);
    }
    this.#buffer = start === 0 ? text : text.slice(start);
    if (this.#buffer.length > MAX_LINE_CHARS) {
      this.onerror?.(new Error(`the server wrote more than ${MAX_LINE_CHARS} characters without a newline`));
      this.#child?.kill('SIGKILL');
    }
  }

  #deliver(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      // Not protocol: a server that prints to stdout. Reported, not fatal (as the SDK does).
      this.onerror?.(new Error(`the server wrote a line that is not JSON: ${line.slice(0, 200)}`));
      return;
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message) || (message as { jsonrpc?: unknown }).jsonrpc !== '2.0') {
      this.onerror?.(new Error('the server wrote JSON that is not a JSON-RPC 2.0 message'));
      return;
    }
    keepResultText(line, message);
    this.onmessage?.(message as JSONRPCMessage);
  }

  #ended(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#buffer = '';
    this.onclose?.();
  }
}
