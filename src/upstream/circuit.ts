// A circuit breaker reduced to what a supervised connection needs: count consecutive transport
// failures (the upstream could not be reached or the connection broke; an error the upstream
// itself answered with is a success, it is alive), and say when the count reaches the threshold.
// Opening is the supervisor's business: it drops the connection, so requests fail fast with an
// error naming the server while reconnect attempts (with backoff) probe it; the next successful
// connect is a new connection with a new, closed circuit.
export class ConsecutiveFailures {
  #count = 0;

  constructor(readonly threshold: number) {
    if (!Number.isInteger(threshold) || threshold < 1) throw new RangeError(`the circuit threshold must be a positive integer, not ${threshold}`);
  }

  get count(): number {
    return this.#count;
  }

  succeeded(): void {
    this.#count = 0;
  }

  /** True exactly when this failure opens the circuit. */
  failed(): boolean {
    this.#count += 1;
    return this.#count === this.threshold;
  }
}
