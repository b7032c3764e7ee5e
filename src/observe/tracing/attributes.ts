// The attribute names spans carry. MCP's are OpenTelemetry's semantic conventions for MCP (in
// development, now in the semantic-conventions-genai repository: docs/gen-ai/mcp.md), written out
// here rather than imported from @opentelemetry/semantic-conventions/incubating, whose names may
// change in any minor release (OpenTelemetry's own advice for development-stage names). The
// `switchboard.*` ones are the gateway's, where no convention exists.
//
// Never an attribute: tool arguments, results, error messages (they may quote arguments), tokens,
// whole session ids, resource URIs (a client's text, which may carry identifiers or credentials;
// the audit line has them).
export const MCP_METHOD_NAME = 'mcp.method.name';
export const MCP_PROTOCOL_VERSION = 'mcp.protocol.version';
/** The first 8 characters of the session id, as in every log line: the id itself is a credential. */
export const MCP_SESSION_ID = 'mcp.session.id';
export const JSONRPC_REQUEST_ID = 'jsonrpc.request.id';
export const RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code';
export const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const GEN_AI_PROMPT_NAME = 'gen_ai.prompt.name';
export const NETWORK_TRANSPORT = 'network.transport';
export const NETWORK_PROTOCOL_NAME = 'network.protocol.name';
export const HTTP_REQUEST_METHOD = 'http.request.method';
export const HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code';
export const HTTP_ROUTE = 'http.route';
export const URL_PATH = 'url.path';
export const URL_SCHEME = 'url.scheme';

/** The upstream's config name (the `server` of the audit line and the metrics). */
export const SWITCHBOARD_SERVER = 'switchboard.server';
/** `2025` (a session) or `2026` (a stateless request) on the gateway's side; the upstream's era on an upstream call. */
export const SWITCHBOARD_ERA = 'switchboard.era';
/** `ok`, `error` or `denied`, as in the audit line and the metrics. */
export const SWITCHBOARD_OUTCOME = 'switchboard.outcome';
/** Why a denied request was refused (a limit, a withheld tool), as in the audit line. */
export const SWITCHBOARD_REASON = 'switchboard.reason';
/** The configured endpoint a request came in on (config `endpoints`); absent for the default one. */
export const SWITCHBOARD_ENDPOINT = 'switchboard.endpoint';

/** gen_ai.operation.name for a tool call, the one operation the conventions name for MCP. */
export const EXECUTE_TOOL = 'execute_tool';
/** error.type of a tools/call whose result says isError (the conventions' value). */
export const TOOL_ERROR = 'tool_error';
