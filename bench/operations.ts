// The requests the loads make, and the check of each answer. The check is cheap and keeps an error
// result (isError, the wrong tool answering, an empty list, a 2025 answer on the 2026 path) from
// passing as a fast call. One definition for every load (light HTTP, raw stdio, SDK clients).

export const ECHO_ARGUMENTS = { message: 'hello from the benchmark' };

/** The 2026 protocol revision that stateless targets are asked in. */
export const MODERN_VERSION = '2026-07-28';

/**
 * echo: tools/call of the echo tool, which goes to the upstream and back. ping: answered by the
 * front alone (a gateway or proxy never forwards it), so it shows the front's own floor.
 * tools/list: the merged catalogue, for the scale rows.
 */
export type Operation = 'echo' | 'ping' | 'tools/list';

export interface JsonRpcCall {
  readonly method: string;
  readonly params: Record<string, unknown>;
  /** The `Mcp-Name` header of a 2026 request, where the method has one. */
  readonly name?: string;
}

/** The JSON-RPC method and params of `operation` on a target whose echo tool is called `tool`. */
export function requestOf(operation: Operation, tool: string): JsonRpcCall {
  switch (operation) {
    case 'echo':
      return { method: 'tools/call', params: { name: tool, arguments: ECHO_ARGUMENTS }, name: tool };
    case 'ping':
      return { method: 'ping', params: {} };
    case 'tools/list':
      return { method: 'tools/list', params: {} };
  }
}

/** Throws unless `result` is a good answer to `operation`. */
export function checkResult(operation: Operation, result: unknown): void {
  if (operation === 'echo') return checkEcho(result);
  if (typeof result !== 'object' || result === null) throw new Error(`unexpected ${operation} result: ${JSON.stringify(result)}`);
  if (operation === 'tools/list' && !(Array.isArray((result as { tools?: unknown }).tools) && (result as { tools: unknown[] }).tools.length > 0)) {
    throw new Error(`no tools in: ${JSON.stringify(result).slice(0, 200)}`);
  }
}

/** Throws unless `result` is echo's answer. */
export function checkEcho(result: unknown): void {
  const { content, isError } = (result ?? {}) as { content?: unknown; isError?: unknown };
  const first: unknown = Array.isArray(content) ? content[0] : undefined;
  const text = (first as { type?: unknown; text?: unknown } | undefined)?.text;
  if (isError === true || typeof text !== 'string' || !text.includes(ECHO_ARGUMENTS.message)) {
    throw new Error(`unexpected result: ${JSON.stringify(result).slice(0, 200)}`);
  }
}
