// The sliding-window counter both limiters share (the approximation Cloudflare and nginx's
// limit_req users know): a count for the current fixed window and one for the previous, weighted by
// how much of the previous window the sliding one still covers. Two numbers per key, no list of
// timestamps, and no burst of twice the limit at a window edge as a fixed window allows.
// A refused request is not counted, so a client that keeps retrying is let in again as soon as its
// earlier requests age out. Pure: state in, state out.

export interface WindowState {
  /** Index of the current window: floor(time / windowMs). */
  readonly window: number;
  readonly current: number;
  readonly previous: number;
}

export interface WindowDecision {
  readonly allowed: boolean;
  readonly state: WindowState;
  /** When refused: how long until one more request would be allowed. */
  readonly retryAfterMs: number;
}

/** The state at `now`: the windows rolled forward, nothing counted. */
export function rollWindow(state: WindowState | undefined, now: number, windowMs: number): WindowState {
  const window = Math.floor(now / windowMs);
  if (!state || state.window < window - 1 || state.window > window) return { window, current: 0, previous: 0 };
  if (state.window === window - 1) return { window, current: 0, previous: state.current };
  return state;
}

export function hit(state: WindowState | undefined, now: number, windowMs: number, limit: number): WindowDecision {
  const rolled = rollWindow(state, now, windowMs);
  const elapsed = now - rolled.window * windowMs;
  if (estimate(rolled, elapsed, windowMs) + 1 <= limit) {
    return { allowed: true, state: { ...rolled, current: rolled.current + 1 }, retryAfterMs: 0 };
  }
  return { allowed: false, state: rolled, retryAfterMs: retryAfterMs(rolled, elapsed, windowMs, limit) };
}

function estimate({ current, previous }: WindowState, elapsed: number, windowMs: number): number {
  return (previous * (windowMs - elapsed)) / windowMs + current;
}

/** The earliest moment at which estimate + 1 <= limit again, if no other request comes. */
export function retryAfterMs({ current, previous }: WindowState, elapsed: number, windowMs: number, limit: number): number {
  if (current + 1 <= limit) {
    // Only the previous window's weight is in the way; it shrinks linearly to the window's end.
    if (previous === 0) return 0;
    const until = windowMs - ((limit - current - 1) * windowMs) / previous;
    return Math.max(0, until - elapsed);
  }
  // Not in this window: in the next, this window's count becomes the weighted previous one.
  const untilNext = windowMs - elapsed;
  const intoNext = current === 0 ? 0 : Math.max(0, windowMs - ((limit - 1) * windowMs) / current);
  return untilNext + intoNext;
}

/** Retry-After is whole seconds, and "0" would invite an immediate retry that fails again. */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

export interface QuotasDecision {
  readonly allowed: boolean;
  /** When allowed: every state with the request counted. When refused: nothing is to be kept. */
  readonly states: readonly WindowState[];
  /** When refused: the index of the limit that keeps the caller waiting longest; else -1. */
  readonly refusedBy: number;
  readonly retryAfterMs: number;
}

/**
 * One request against several limits at once (a server's and one of its tools'): counted in all of
 * them when every one allows it, in none when any refuses, so a refusal by one does not use up
 * another.
 */
export function hitAll(states: readonly (WindowState | undefined)[], now: number, windowMs: number, limits: readonly number[]): QuotasDecision {
  const counted: WindowState[] = [];
  let refusedBy = -1;
  let longest = 0;
  for (const [index, limit] of limits.entries()) {
    const decision = hit(states[index], now, windowMs, limit);
    counted.push(decision.state);
    if (!decision.allowed && (refusedBy < 0 || decision.retryAfterMs > longest)) {
      refusedBy = index;
      longest = decision.retryAfterMs;
    }
  }
  return refusedBy < 0 ? { allowed: true, states: counted, refusedBy, retryAfterMs: 0 } : { allowed: false, states: [], refusedBy, retryAfterMs: longest };
}
