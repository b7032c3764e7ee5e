// Every URI the gateway hands a client is one the client can read back: resource links and
// embedded resources in tool and prompt results, and the contents of resources/read, are rewritten
// to their exposed form. Pure and copy-on-write: a result with nothing to rewrite (most tool
// results are text) is handed back as it is, so that it keeps the text it came in (result-text.ts)
// rather than being copied and serialized again. Results of unprefixed servers pass untouched.
import { isJsonObject, type JsonObject } from '../../protocol/json.js';
import { exposeUri } from './namespace.js';

export function exposeContentUris(result: JsonObject, server: string): JsonObject {
  if (!Array.isArray(result.content)) return result;
  const content = mapChanged(result.content, server, exposeBlock);
  return content === result.content ? result : { ...result, content };
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
