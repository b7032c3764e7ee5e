// Small bodies of the sign-in endpoints, read from node's request within a bound: a body past it is
// abandoned at once rather than read to the end.
import type { IncomingMessage } from 'node:http';

export type BoundedBody = { readonly ok: true; readonly bytes: Buffer } | { readonly ok: false };

export async function readWithin(request: IncomingMessage, maxBytes: number): Promise<BoundedBody> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return { ok: false };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) return { ok: false };
    chunks.push(chunk);
  }
  return { ok: true, bytes: Buffer.concat(chunks) };
}

/** An application/x-www-form-urlencoded body; undefined when it is another type or too large. */
export async function readFormWithin(request: IncomingMessage, maxBytes: number): Promise<URLSearchParams | undefined> {
  if (!(request.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')) return undefined;
  const body = await readWithin(request, maxBytes);
  return body.ok ? new URLSearchParams(body.bytes.toString('utf8')) : undefined;
}
