// Which tools the gateway runs as its own tasks (docs/decisions/0019-gateway-tasks.md): with
// `tasks.gatewayTasks` on, a tool of a server that has no tasks of its own and says nothing of how
// it runs as one (no `execution.taskSupport`) is listed with taskSupport "optional", so a client
// knows it may ask for a task; the gateway then runs the call as one (gateway-runs.ts). A tool whose
// server says "forbidden" (or anything else) keeps its word; a server with tasks routes them itself.
import { isJsonObject, type JsonObject } from '../../protocol/json.js';

/** The `execution` the gateway lists for a tool it runs as a task. */
const GATEWAY_RUN: JsonObject = { taskSupport: 'optional' };

/** Whether a server's capabilities (2025 `tasks.requests.tools.call`, or 2026's tasks extension) say it runs tool calls as tasks itself. */
export function hasOwnToolTasks(capabilities: JsonObject): boolean {
  const tasks = capabilities.tasks;
  const requests = isJsonObject(tasks) ? tasks.requests : undefined;
  const tools = isJsonObject(requests) ? requests.tools : undefined;
  if (isJsonObject(tools) && isJsonObject(tools.call)) return true;
  const extensions = capabilities.extensions;
  return isJsonObject(extensions) && isJsonObject(extensions['io.modelcontextprotocol/tasks']);
}

/** The tools of a server without tasks, each that says nothing of tasks marked as one the gateway runs. */
export function markGatewayRunTools(tools: readonly JsonObject[]): readonly JsonObject[] {
  return tools.map((tool) => (saysTaskSupport(tool) ? tool : { ...tool, execution: { ...(isJsonObject(tool.execution) ? tool.execution : {}), ...GATEWAY_RUN } }));
}

function saysTaskSupport(tool: JsonObject): boolean {
  return isJsonObject(tool.execution) && tool.execution.taskSupport !== undefined;
}
