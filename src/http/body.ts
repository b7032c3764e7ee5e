// Reading a request body within server.maxBodyBytes. A declared Content-Length over the limit is
// refused before a byte is read (middleware/body-size.ts); a body without one (chunked) is read
// chunk by chunk and abandoned as soon as it passes the limit. Hono's bodyLimit middleware does
// the same but reads every body through web streams, which costs the node-server fast path on
// every request (measured with `npm run bench -- --cpu-prof`).
import type { Context } from 'hono';

export type BodyRead = { ok: true; bytes: Uint8Array } | { ok: false; tooLarge: true };

export async function readBodyWithin(c: Context, maxBytes: number): Promise<BodyRead> {
  if (c.req.header('content-length') !== undefined) {
    // The length was checked against the limit, and the server ends the body at that length.
    return { ok: true, bytes: new Uint8Array(await c.req.arrayBuffer()) };
  }
  const reader = c.req.raw.body?.getReader();
  if (!reader) return { ok: true, bytes: new Uint8Array() };
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return { ok: false, tooLarge: true };
    }
    chunks.push(value);
  }
  return { ok: true, bytes: Buffer.concat(chunks) };
}
