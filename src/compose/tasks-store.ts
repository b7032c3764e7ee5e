// Where the gateway's task records live (gateway/tasks/task-records.ts): memory, or the sessions'
// Redis under `{keyPrefix}tasks:` so every replica finds a task another created. Opened on first
// use, so a gateway whose clients never ask for a task opens no connection for it.
import type { Config } from '../config/schema.js';
import { createKeyValueStore } from '../session/create-key-value.js';
import type { KeyValueStore } from '../session/key-value.js';

export function tasksStore(config: Config): KeyValueStore {
  return createKeyValueStore(config.sessions, 'tasks', { lazy: true });
}
