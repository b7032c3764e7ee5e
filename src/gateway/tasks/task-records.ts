// Which upstream task a task id the gateway handed out stands for, and whose it is. A client never
// sees an upstream's task id: it gets a random id of the gateway's, mapped in the store (memory, or
// Redis for every replica) to the server, the upstream's id, the replica whose connection created it
// (an upstream's tasks may live in that connection's session only), and the principal and endpoint
// it is bound to. A record is kept as long as the task's ttl says; one of another principal or
// endpoint is answered exactly as one that does not exist.
import { randomBytes } from 'node:crypto';
import type { KeyValueStore } from '../../session/key-value.js';

export interface TaskRecord {
  /** The gateway's task id, the one the client holds. */
  readonly id: string;
  readonly server: string;
  readonly upstreamTaskId: string;
  /** The replica (bus id) whose connection to `server` created the task. */
  readonly replica: string;
  /** Whose task it is: the principal's subject, '' without auth. */
  readonly owner: string;
  /** The endpoint it was created on; '' for the default one. */
  readonly endpoint: string;
  /** The 2025 session that created it, for its status notifications; absent for a 2026 caller. */
  readonly session?: string;
  /** The upstream's task is of the 2026 tasks extension (extension-tasks.ts); absent: 2025's experimental tasks. */
  readonly modern?: true;
  /** A gateway task (gateway-runs.ts): the gateway runs the call, the upstream has no task of it. */
  readonly gateway?: true;
}

/** How long a record is kept when the upstream's task has no ttl (`null`: unlimited) or an unusable one. */
export const DEFAULT_TASK_SECONDS = 24 * 3600;
/** The longest a record is kept, whatever the upstream says. */
const MAX_TASK_SECONDS = 7 * 24 * 3600;

export class TaskRecords {
  constructor(private readonly store: KeyValueStore) {}

  /** Records a new task; `ttlMs` is the upstream task's. Returns the gateway's id for it. */
  async create(fields: Omit<TaskRecord, 'id'>, ttlMs: unknown): Promise<TaskRecord> {
    const record: TaskRecord = { id: randomBytes(16).toString('base64url'), ...fields };
    const seconds = keptSeconds(ttlMs);
    await this.store.set(recordKey(record.id), JSON.stringify(record), seconds);
    await this.store.addMember(ownerKey(record.owner), record.id, seconds);
    await this.store.set(upstreamKey(record.replica, record.server, record.upstreamTaskId), record.id, seconds);
    return record;
  }

  /** The record of an upstream's task created by `replica`'s connection to `server` (its status notifications name it so). */
  async ofUpstream(replica: string, server: string, upstreamTaskId: string): Promise<TaskRecord | undefined> {
    const id = await this.store.get(upstreamKey(replica, server, upstreamTaskId));
    const text = id === undefined ? undefined : await this.store.get(recordKey(id));
    return text === undefined ? undefined : (JSON.parse(text) as TaskRecord);
  }

  /** The record of `id` when it is `owner`'s on `endpoint`; undefined otherwise (unknown, expired, or someone else's). */
  async find(id: string, owner: string, endpoint: string): Promise<TaskRecord | undefined> {
    const text = await this.store.get(recordKey(id));
    if (text === undefined) return undefined;
    const record = JSON.parse(text) as TaskRecord;
    return record.owner === owner && record.endpoint === endpoint ? record : undefined;
  }

  /** The owner's tasks on every endpoint (for the bound on gateway tasks, which is per principal). */
  async allOf(owner: string): Promise<TaskRecord[]> {
    const ids = await this.store.members(ownerKey(owner));
    const found = await Promise.all(ids.map(async (id) => this.store.get(recordKey(id))));
    return found.flatMap((text) => (text === undefined ? [] : [JSON.parse(text) as TaskRecord]));
  }

  /** The owner's live tasks on `endpoint`, oldest first. */
  async listFor(owner: string, endpoint: string): Promise<TaskRecord[]> {
    const ids = await this.store.members(ownerKey(owner));
    const found = await Promise.all(ids.map((id) => this.find(id, owner, endpoint)));
    return found.filter((record): record is TaskRecord => record !== undefined);
  }
}

function keptSeconds(ttlMs: unknown): number {
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0) return DEFAULT_TASK_SECONDS;
  return Math.min(MAX_TASK_SECONDS, Math.ceil(ttlMs / 1000));
}

function recordKey(id: string): string {
  return `task:${id}`;
}

function upstreamKey(replica: string, server: string, upstreamTaskId: string): string {
  return `upstream-task:${replica}:${server}:${upstreamTaskId}`;
}

function ownerKey(owner: string): string {
  return `tasks-of:${owner}`;
}
