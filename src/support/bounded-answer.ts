// Reading the answer of an identity provider's endpoint (token exchange, introspection): at most a
// bound of bytes, since no real answer comes near it and a hostile or broken one must not fill
// memory; and telling a stale keep-alive connection (worth one retry) from other failures.

/** The body as text; past `maxBytes` the body is dropped and `tooLarge()` thrown. */
export async function readBounded(body: AsyncIterable<Buffer> & { destroy(): void }, maxBytes: number, tooLarge: () => Error): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The connection went away before an answer: what a stale keep-alive connection looks like. */
export function closedUnderUs(error: unknown): boolean {
  const code = errorCodeOf(error);
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE';
}

/** A network error's code (`ECONNREFUSED`, `UND_ERR_SOCKET`...), looked for along its causes. */
export function errorCodeOf(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code } = error as Error & { code?: unknown };
  if (typeof code === 'string') return code;
  return error.cause === undefined ? undefined : errorCodeOf(error.cause);
}
