// Every URI the gateway hands a client is one the client can read back: resource links and
// embedded resources in tool and prompt results, and the contents of resources/read, are rewritten
// to their exposed form. Pure and copy-on-write; results of unprefixed servers pass untouched.
import { isJsonObject, type JsonObject } from './json.js';
import { exposeUri } from './namespace.js';

export function exposeContentUris(result: JsonObject, server: string): JsonObject {
  if (!Array.isArray(result.content)) return result;
  return { ...result, content: result.content.map((block) => exposeBlock(block, server)) };
}

export function exposePromptUris(result: JsonObject, server: string): JsonObject {
  if (!Array.isArray(result.messages)) return result;
  return {
    ...result,
    messages: result.messages.map((message) => {
      if (!isJsonObject(message)) return message;
      const content = Array.isArray(message.content)
        ? message.content.map((block) => exposeBlock(block, server))
        : exposeBlock(message.content, server);
      return { ...message, content };
    }),
  };
}

export function exposeReadUris(result: JsonObject, server: string): JsonObject {
  if (!Array.isArray(result.contents)) return result;
  return { ...result, contents: result.contents.map((contents) => exposeUriField(contents, server)) };
}

function exposeBlock(block: unknown, server: string): unknown {
  if (!isJsonObject(block)) return block;
  if (block.type === 'resource_link') return exposeUriField(block, server);
  if (block.type === 'resource' && isJsonObject(block.resource)) {
    return { ...block, resource: exposeUriField(block.resource, server) };
  }
  return block;
}

function exposeUriField(value: unknown, server: string): unknown {
  if (!isJsonObject(value) || typeof value.uri !== 'string') return value;
  return { ...value, uri: exposeUri(server, value.uri) };
}
