// Both stores take the idle timeout in whole seconds because Redis `EX` does; checking it once here
// turns a bad value into an error at construction instead of a Redis error on the first request.
export function assertIdleTimeout(idleTimeoutSeconds: number): void {
  if (!Number.isInteger(idleTimeoutSeconds) || idleTimeoutSeconds <= 0) {
    throw new RangeError(`idleTimeoutSeconds must be a positive whole number, got ${idleTimeoutSeconds}`);
  }
}
