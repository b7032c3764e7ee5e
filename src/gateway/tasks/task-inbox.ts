// A 2025 upstream's questions for a task of a 2026 client (the tasks extension, bridged). A 2025
// server asks for a task's input with requests of its own (elicitation, sampling), tagged with the
// task and delivered while a client waits on tasks/result; a 2026 client has no stream to take them
// on, and is asked instead through tasks/get's `inputRequests` and answers with tasks/update. So
// the replica whose connection created the task (where the upstream's requests arrive) holds them
// here: once the upstream says the task is input_required, it waits on tasks/result itself to get
// them delivered, keeps each under a key of its own (never reused within the task), hands them to
// tasks/get, and answers each when tasks/update brings its key; keys not pending are ignored, as the
// extension says. Other replicas reach this one through the task relay, with the two methods below,
// which never leave the gateway.
import { isJsonObject, type JsonObject } from '../../protocol/json.js';
import { rpcError } from '../errors.js';

/** The held input requests of a task (`params`: { taskId, status }, the upstream's status now). */
export const TASK_INPUTS = 'switchboard/task-inputs';
/** Answers held input requests (`params`: { taskId, inputResponses }). */
export const TASK_ANSWERS = 'switchboard/task-answers';

/** How long tasks/get waits for the upstream to deliver a question it says it has. */
const DELIVERY_WAIT_MS = 2_000;

interface Held {
  readonly request: { readonly method: string; readonly params?: JsonObject };
  resolve(result: JsonObject): void;
}

interface TaskQuestions {
  readonly held: Map<string, Held>;
  /** The tasks/result that makes the upstream deliver its questions is running. */
  fetching: boolean;
  /** Woken when a question arrives. */
  arrived: (() => void)[];
}

export class TaskInbox {
  readonly #tasks = new Map<string, TaskQuestions>();
  /** One count for the replica: a key is never used twice for a task, even once its entry is gone. */
  #keys = 0;

  /**
   * @param fetch waits on the upstream's tasks/result for the task, on this replica's connection
   *   (which is what makes a 2025 upstream deliver the questions it queued for it).
   */
  constructor(private readonly fetch: (server: string, upstreamTaskId: string) => Promise<unknown>) {}

  /** Holds an upstream's question for the task until tasks/update answers it (or the upstream gives up). */
  hold(server: string, upstreamTaskId: string, request: { readonly method: string; readonly params?: JsonObject; readonly signal: AbortSignal }): Promise<JsonObject> {
    const questions = this.#questions(server, upstreamTaskId);
    this.#keys += 1;
    const key = `input-${this.#keys}`;
    return new Promise<JsonObject>((resolve, reject) => {
      const { method, params } = request;
      questions.held.set(key, { request: { method, ...(params && { params: withoutRelatedTask(params) }) }, resolve });
      request.signal.addEventListener('abort', () => (questions.held.delete(key), reject(rpcError('RequestCancelled', method, 'the upstream withdrew it'))), { once: true });
      for (const wake of questions.arrived.splice(0)) wake();
    });
  }

  /** Answers an inbox method of the task relay; undefined for any other method (it goes upstream). */
  serve(server: string, method: string, params: JsonObject): Promise<JsonObject> | undefined {
    const upstreamTaskId = String(params.taskId);
    if (method === TASK_INPUTS) return this.#inputs(server, upstreamTaskId, params.status);
    if (method === TASK_ANSWERS) return Promise.resolve(this.#answer(server, upstreamTaskId, isJsonObject(params.inputResponses) ? params.inputResponses : {}));
    return undefined;
  }

  async #inputs(server: string, upstreamTaskId: string, status: unknown): Promise<JsonObject> {
    // Nothing held and nothing announced (the common poll of a working task): no entry is made.
    if (status !== 'input_required' && !this.#tasks.has(keyOf(server, upstreamTaskId))) return { inputRequests: {} };
    const questions = this.#questions(server, upstreamTaskId);
    if (questions.held.size === 0 && status === 'input_required') {
      this.#startFetching(server, upstreamTaskId, questions);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, DELIVERY_WAIT_MS);
        questions.arrived.push(() => (clearTimeout(timer), resolve()));
      });
    }
    return { inputRequests: Object.fromEntries([...questions.held].map(([key, held]) => [key, held.request])) };
  }

  #answer(server: string, upstreamTaskId: string, responses: JsonObject): JsonObject {
    const questions = this.#tasks.get(keyOf(server, upstreamTaskId));
    for (const [key, response] of Object.entries(responses)) {
      const held = questions?.held.get(key);
      if (!held || !isJsonObject(response)) continue;
      questions!.held.delete(key);
      held.resolve(response);
    }
    return {};
  }

  #startFetching(server: string, upstreamTaskId: string, questions: TaskQuestions): void {
    if (questions.fetching) return;
    questions.fetching = true;
    // Its answer is the task's result, which tasks/get fetches again once the task is over.
    void this.fetch(server, upstreamTaskId)
      .catch(() => {})
      .finally(() => {
        questions.fetching = false;
        // The upstream answered (the task is over) or gave up: nothing more comes through this wait.
        if (questions.held.size === 0) this.#tasks.delete(keyOf(server, upstreamTaskId));
      });
  }

  #questions(server: string, upstreamTaskId: string): TaskQuestions {
    const key = keyOf(server, upstreamTaskId);
    let questions = this.#tasks.get(key);
    if (!questions) {
      questions = { held: new Map(), fetching: false, arrived: [] };
      this.#tasks.set(key, questions);
    }
    return questions;
  }
}

function keyOf(server: string, upstreamTaskId: string): string {
  return `${server}\n${upstreamTaskId}`;
}

/** A 2026 input request names no task: it is the task's by where it is found. */
function withoutRelatedTask(params: JsonObject): JsonObject {
  const meta = params._meta;
  if (!isJsonObject(meta) || !('io.modelcontextprotocol/related-task' in meta)) return params;
  const { 'io.modelcontextprotocol/related-task': _task, ...rest } = meta;
  const { _meta: _dropped, ...plain } = params;
  return Object.keys(rest).length > 0 ? { ...plain, _meta: rest } : plain;
}
