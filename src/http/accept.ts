// The Accept rules of the Streamable HTTP transport: a POST must accept both JSON and SSE, a GET
// must accept SSE. Wildcards count, as in any HTTP content negotiation.

export function acceptsJsonAndEventStream(accept: string | undefined): boolean {
  const types = mediaTypes(accept);
  return accepts(types, 'application/json') && accepts(types, 'text/event-stream');
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
