// Every URI the gateway hands a client is one the client can read back: resource links and
// embedded resources in tool and prompt results, and the contents of resources/read, are rewritten
// to their exposed form. Pure and copy-on-write: a result with nothing to rewrite (most tool
// results are text) is handed back as it is, so that it keeps the text it came in (result-text.ts)
// rather than being copied and serialized again. Results of unprefixed servers pass untouched.
import { isJsonObject, type JsonObject } from '../../protocol/json.js';
import { exposeUri } from './namespace.js';

export function exposeContentUris(result: JsonObject, server: string): JsonObject {
  // An app's UI named in the result's _meta (MCP Apps): rare, and one property read when absent.
  const withMeta = result._meta === undefined ? result : exposeAppUris(result, server);
  if (!Array.isArray(withMeta.content)) return withMeta;
  const content = mapChanged(withMeta.content, server, exposeBlock);
  return content === withMeta.content ? withMeta : { ...withMeta, content };
}

/** MCP Apps' keys naming a tool's UI resource: `_meta.ui.resourceUri`, and the deprecated flat key. */
const UI_META = 'ui';
const LEGACY_UI_RESOURCE_URI = 'ui/resourceUri';

/**
 * A tool (or tool result) whose `_meta` names its app's UI resource, with that URI exposed; every
 * other `_meta` key (visibility, CSP, permissions, domain) is left as the upstream wrote it.
 */
export function exposeAppUris(owner: JsonObject, server: string): JsonObject {
  const meta = owner._meta;
  if (!isJsonObject(meta)) return owner;
  const ui = meta[UI_META];
  const nested = isJsonObject(ui) && typeof ui.resourceUri === 'string' ? ui : undefined;
  const legacy = meta[LEGACY_UI_RESOURCE_URI];
  if (nested === undefined && typeof legacy !== 'string') return owner;
  const exposed: JsonObject = { ...meta };
  if (nested !== undefined) exposed[UI_META] = { ...nested, resourceUri: exposeUri(server, nested.resourceUri as string) };
  if (typeof legacy === 'string') exposed[LEGACY_UI_RESOURCE_URI] = exposeUri(server, legacy);
  return { ...owner, _meta: exposed };
}

export function exposePromptUris(result: JsonObject, server: string): JsonObject {
  if (!Array.isArray(result.messages)) return result;
  const messages = mapChanged(result.messages, server, exposeMessage);
  return messages === result.messages ? result : { ...result, messages };
}

export function exposeReadUris(result: JsonObject, server: string): JsonObject {
  if (!Array.isArray(result.contents)) return result;
  const contents = mapChanged(result.contents, server, exposeUriField);
  return contents === result.contents ? result : { ...result, contents };
}

/** `items` mapped by `expose`, or `items` itself when `expose` changed none of them. */
function mapChanged(items: readonly unknown[], server: string, expose: (item: unknown, server: string) => unknown): readonly unknown[] {
  for (let index = 0; index < items.length; index += 1) {
    const first = expose(items[index], server);
    if (first === items[index]) continue;
    const mapped = items.slice(0, index);
    mapped.push(first);
    for (let rest = index + 1; rest < items.length; rest += 1) mapped.push(expose(items[rest], server));
    return mapped;
  }
  return items;
}

function exposeMessage(message: unknown, server: string): unknown {
  if (!isJsonObject(message)) return message;
  const content = Array.isArray(message.content) ? mapChanged(message.content, server, exposeBlock) : exposeBlock(message.content, server);
  return content === message.content ? message : { ...message, content };
}

function exposeBlock(block: unknown, server: string): unknown {
  if (!isJsonObject(block)) return block;
  if (block.type === 'resource_link') return exposeUriField(block, server);
  if (block.type === 'resource' && isJsonObject(block.resource)) {
    const resource = exposeUriField(block.resource, server);
    return resource === block.resource ? block : { ...block, resource };
  }
  return block;
}

function exposeUriField(value: unknown, server: string): unknown {
  if (!isJsonObject(value) || typeof value.uri !== 'string') return value;
  return { ...value, uri: exposeUri(server, value.uri) };
}
