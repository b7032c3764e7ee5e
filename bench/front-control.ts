// The bench's side of front-hooks.mjs: commands to a front process (gateway, mcp-proxy, min-proxy) over the
// IPC channel it was spawned with, each answered by a reply with the same sequence number.
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The preload to pass as `--import` (a file URL works from any working directory). */
export const FRONT_HOOKS = new URL('./front-hooks.mjs', import.meta.url).href;
export const FRONT_HOOKS_PATH = fileURLToPath(FRONT_HOOKS);

const REPLY_TIMEOUT_MS = 30_000;

export interface MemoryUsage {
  readonly rss: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
  readonly arrayBuffers: number;
  /** Whether a full GC ran first: always, since front-hooks.mjs exposes one itself (kept for the JSON's gcForced). */
  readonly gc: boolean;
}

/** What the process's garbage collector has paused it for since it started, and had to collect. */
export interface GcTotals {
  readonly ms: number;
  /** Full (mark-compact) collections among them. */
  readonly major: number;
  /** Bytes allocated in the young generation since the first reading (0 at the first). */
  readonly allocatedBytes: number;
}

export interface FrontControl {
  memory(): Promise<MemoryUsage>;
  /**
   * The full collection every process that has run a while has had, once per process: true when
   * it ran now, false when it had run before.
   */
  settle(): Promise<boolean>;
  gcTotals(): Promise<GcTotals>;
  profileStart(): Promise<void>;
  /** Writes the profile since profileStart() to `file` (a .cpuprofile). */
  profileStop(file: string): Promise<void>;
}

interface Reply {
  readonly seq: number;
  readonly result?: unknown;
  readonly error?: string;
}

let lastSeq = 0;

export function frontControl(child: ChildProcess): FrontControl {
  const ask = (command: string, args: object = {}): Promise<unknown> => {
    if (child.send === undefined || !child.connected) return Promise.reject(new Error(`process ${child.pid} has no IPC channel`));
    const seq = (lastSeq += 1);
    return new Promise((resolve, reject) => {
      const onMessage = (message: Reply): void => {
        if (message?.seq !== seq) return;
        done();
        if (message.error !== undefined) reject(new Error(`${command}: ${message.error}`));
        else resolve(message.result);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${command}: no reply from process ${child.pid} within ${REPLY_TIMEOUT_MS} ms`));
      }, REPLY_TIMEOUT_MS);
      const done = (): void => {
        clearTimeout(timer);
        child.off('message', onMessage);
      };
      child.on('message', onMessage);
      child.send!({ seq, command, ...args });
    });
  };
  let settled = false;
  return {
    memory: async () => (await ask('memory')) as MemoryUsage,
    settle: async () => {
      if (settled) return false;
      settled = true;
      await ask('fullGc');
      return true;
    },
    gcTotals: async () => (await ask('gcTotals')) as GcTotals,
    profileStart: async () => void (await ask('profileStart')),
    profileStop: async (file) => void (await ask('profileStop', { file })),
  };
}
