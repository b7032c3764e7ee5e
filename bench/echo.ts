// The call every load makes, and the check of its answer. The check is cheap and keeps an error
// result (isError, the wrong tool answering, a 2025 answer on the 2026 path) from passing as a fast call.

export const ECHO_ARGUMENTS = { message: 'hello from the benchmark' };

/** The 2026 protocol revision that the stateless target is asked in. */
export const MODERN_VERSION = '2026-07-28';

/** Throws unless `result` is echo's answer. */
export function checkEcho(result: unknown): void {
  const { content, isError } = (result ?? {}) as { content?: unknown; isError?: unknown };
  const first: unknown = Array.isArray(content) ? content[0] : undefined;
  const text = (first as { type?: unknown; text?: unknown } | undefined)?.text;
  if (isError === true || typeof text !== 'string' || !text.includes(ECHO_ARGUMENTS.message)) {
    throw new Error(`unexpected result: ${JSON.stringify(result).slice(0, 200)}`);
  }
}
