// Which param a 2026-07-28 request's Mcp-Name header mirrors (basic/transports/streamable-http):
// `name` for tools/call and prompts/get, `uri` for resources/read, `taskId` for the tasks
// extension's tasks/get, tasks/update and tasks/cancel; other methods have none. One rule
// for both ends of the gateway: it checks what its clients send (http/modern-headers.ts) and derives
// what it sends to 2026 HTTP upstreams (upstream/enveloped-request.ts).

// A Map, not an object literal: the method comes from a client, and "constructor" or "__proto__"
// would find Object.prototype's members in a literal.
const NAMED_BY: ReadonlyMap<string, 'name' | 'uri' | 'taskId'> = new Map([
  ['tools/call', 'name'],
  ['prompts/get', 'name'],
  ['resources/read', 'uri'],
  ['tasks/get', 'taskId'],
  ['tasks/update', 'taskId'],
  ['tasks/cancel', 'taskId'],
]);

/** The params key whose value `method`'s Mcp-Name mirrors; undefined when the method names nothing. */
export function mcpNameParam(method: string): 'name' | 'uri' | 'taskId' | undefined {
  return NAMED_BY.get(method);
}
