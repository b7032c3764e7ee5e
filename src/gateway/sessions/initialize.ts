// What the gateway says at initialize: a protocol version both sides speak, the union of the
// upstreams' capabilities, and their instructions, each under its server's name.
import { isJsonObject, type JsonObject } from '../../protocol/json.js';
import { announcedExtensions, TASKS_EXTENSION } from '../../protocol/extensions.js';

/** Newest first: the first is what a client asking for something else is offered. */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

/** Versions a client may send in the MCP-Protocol-Version header (the header came with 2025-03-26's successor). */
export function isSupportedProtocolVersion(version: string): boolean {
  return (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(version);
}

export function negotiateProtocolVersion(requested: unknown): string {
  return typeof requested === 'string' && isSupportedProtocolVersion(requested) ? requested : SUPPORTED_PROTOCOL_VERSIONS[0];
}

export interface UpstreamAnnouncement {
  readonly server: string;
  readonly capabilities: Readonly<Record<string, unknown>>;
  readonly instructions: string | undefined;
}

/**
 * The gateway re-announces list changes itself (it watches every upstream and also changes its
 * merged lists when upstreams come and go), so listChanged is true wherever a list is offered.
 * logging is always offered: logging/setLevel is answered by the gateway.
 */
export function mergeCapabilities(upstreams: readonly UpstreamAnnouncement[], sessionIsolated = false, gatewayTasks = false): JsonObject {
  // A session's own upstreams start only when it first uses them, so what they offer is not known
  // yet: with any configured, every list (and subscriptions, and completions) is offered.
  const has = (key: string) => sessionIsolated || upstreams.some((upstream) => upstream.capabilities[key] !== undefined);
  const resourcesSubscribe = sessionIsolated || upstreams.some((upstream) => {
    const resources = upstream.capabilities.resources as { subscribe?: unknown } | undefined;
    return resources?.subscribe === true;
  });
  // An extension the gateway passes on (MCP Apps) is announced when an upstream announces it, so
  // a host sees what it would see talking to that server directly.
  const extensions = announcedExtensions(upstreams);
  // Tasks (2025-11-25): announced when an upstream takes task-augmented tools/call, as 2025 says it
  // or as a 2026 upstream does (the tasks extension); the gateway lists and cancels through its own
  // task records (handlers/tasks.ts), and a 2026 client sees the extension (handlers/misc.ts).
  // With gateway tasks on, also when any upstream has tools: the gateway runs those as tasks itself.
  const tasks = upstreams.some((upstream) => takesToolTasks(upstream.capabilities.tasks) || offersTasksExtension(upstream.capabilities.extensions)) || (gatewayTasks && has('tools'));
  return {
    logging: {},
    ...(has('completions') && { completions: {} }),
    ...(has('tools') && { tools: { listChanged: true } }),
    ...(has('prompts') && { prompts: { listChanged: true } }),
    ...(has('resources') && { resources: { listChanged: true, ...(resourcesSubscribe && { subscribe: true }) } }),
    ...(tasks && { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }),
    ...(extensions !== undefined && { extensions }),
  };
}

function offersTasksExtension(extensions: unknown): boolean {
  return isJsonObject(extensions) && isJsonObject(extensions[TASKS_EXTENSION]);
}

function takesToolTasks(tasks: unknown): boolean {
  const requests = isJsonObject(tasks) ? tasks.requests : undefined;
  const tools = isJsonObject(requests) ? requests.tools : undefined;
  return isJsonObject(tools) && isJsonObject(tools.call);
}

export function mergeInstructions(upstreams: readonly UpstreamAnnouncement[]): string | undefined {
  const sections = upstreams
    .filter((upstream) => typeof upstream.instructions === 'string' && upstream.instructions.trim() !== '')
    .map((upstream) => `## ${upstream.server}\n\n${(upstream.instructions ?? '').trim()}`);
  if (sections.length === 0) return undefined;
  return `This gateway combines several MCP servers; each section below is one server's instructions.\n\n${sections.join('\n\n')}`;
}
