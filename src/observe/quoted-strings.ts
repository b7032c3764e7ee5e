// JSON texts of the strings that a per-call log line repeats: the method, the server, the tool's
// name, the outcome, the principal, the session. Quoting them anew for every line was half of what
// building the audit line cost in a micro-benchmark of the line, and a line is written for every
// tool call (docs/decisions/0006-preformatted-audit-lines.md).
//
// The memo is bounded twice over, since resource URIs and subjects come from outside and need not
// repeat: a value longer than `maxLength` is quoted every time and never kept (a client may send
// URIs of megabytes), and when the memo holds `capacity` texts it starts again, empty. A flood of
// distinct values then costs what quoting each one costs, and never more memory than the bounds.

export class QuotedStrings {
  readonly #texts = new Map<string, string>();

  constructor(
    private readonly capacity = 2048,
    private readonly maxLength = 256,
  ) {}

  /** How many texts it holds now. */
  get size(): number {
    return this.#texts.size;
  }

  /** JSON.stringify(value). */
  of(value: string): string {
    let text = this.#texts.get(value);
    if (text === undefined) {
      text = JSON.stringify(value);
      if (value.length > this.maxLength) return text;
      if (this.#texts.size >= this.capacity) this.#texts.clear();
      this.#texts.set(value, text);
    }
    return text;
  }
}
