// The Accept rules of the Streamable HTTP transport: a POST must accept both JSON and SSE, a GET
// must accept SSE. Wildcards count, as in any HTTP content negotiation.

/**
 * A client sends the same Accept header on every POST: the verdict for the last one is kept, so the
 * header is parsed once per client rather than once per message.
 */
let lastPostAccept: { accept: string | undefined; verdict: boolean } = { accept: undefined, verdict: false };

export function acceptsJsonAndEventStream(accept: string | undefined): boolean {
  if (accept !== undefined && lastPostAccept.accept === accept) return lastPostAccept.verdict;
  const types = mediaTypes(accept);
  const verdict = accepts(types, 'application/json') && accepts(types, 'text/event-stream');
  lastPostAccept = { accept, verdict };
  return verdict;
}

export function acceptsEventStream(accept: string | undefined): boolean {
  return accepts(mediaTypes(accept), 'text/event-stream');
}

function mediaTypes(accept: string | undefined): string[] {
  if (!accept) return [];
  return accept
    .split(',')
    .map((part) => part.split(';')[0]?.trim().toLowerCase() ?? '')
    .filter((type) => type !== '');
}

function accepts(types: readonly string[], wanted: string): boolean {
  const [major] = wanted.split('/');
  return types.some((type) => type === wanted || type === '*/*' || type === `${major}/*`);
}
