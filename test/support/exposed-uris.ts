// The README's URI scheme, written out independently of the gateway's code so that tests check
// the documented behaviour rather than the implementation against itself: a prefixed server's
// URI `scheme:rest` is exposed as `scheme+{slug}:rest`, and an MCP App's `ui://rest` as
// `ui://{slug}/rest`. `slug` is the server's slug (README, "Server names"), which for names like
// `everything` is the name itself.

export function exposedUri(slug: string, uri: string): string {
  if (uri.startsWith('ui://')) return `ui://${slug}/${uri.slice('ui://'.length)}`;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(uri);
  if (!scheme || scheme[1] === 'switchboard') return `switchboard+${slug}:${uri}`;
  return `${scheme[1]}+${slug}:${uri.slice(scheme[0].length)}`;
}

/** What an upstream result looks like through the gateway: every URI a client may read back, exposed. */
export function exposeResultUris(result: Record<string, unknown>, slug: string): Record<string, unknown> {
  const copy = structuredClone(result);
  const exposeBlock = (block: Record<string, unknown> | undefined) => {
    if (!block) return;
    if (block.type === 'resource_link' && typeof block.uri === 'string') block.uri = exposedUri(slug, block.uri);
    const resource = block.resource as Record<string, unknown> | undefined;
    if (block.type === 'resource' && typeof resource?.uri === 'string') resource.uri = exposedUri(slug, resource.uri);
  };
  for (const block of (copy.content as Record<string, unknown>[] | undefined) ?? []) exposeBlock(block);
  for (const message of (copy.messages as { content: unknown }[] | undefined) ?? []) {
    const blocks = Array.isArray(message.content) ? message.content : [message.content];
    for (const block of blocks) exposeBlock(block as Record<string, unknown>);
  }
  for (const contents of (copy.contents as Record<string, unknown>[] | undefined) ?? []) {
    if (typeof contents.uri === 'string') contents.uri = exposedUri(slug, contents.uri);
  }
  return copy;
}

/**
 * Blanks what differs between two processes answering the same call: clock times, UUIDs (session
 * ids of server-everything), also inside base64 blobs. Structure and everything else stay.
 */
export function withoutVolatileValues<T>(value: T): T {
  return JSON.parse(JSON.stringify(value), (key, field: unknown) => {
    if (typeof field !== 'string') return field;
    if (key === 'blob') return scrub(Buffer.from(field, 'base64').toString('utf8'));
    return scrub(field);
  }) as T;
}

function scrub(text: string): string {
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, '<iso-time>')
    .replace(/\d{1,2}:\d{2}:\d{2}\s?(AM|PM)?/g, '<time>');
}
