// Whether this replica drains (an operator's drain, or shutdown under way): read by the HTTP layer
// on every request, set by the admin window and by close.
export interface DrainState {
  draining: boolean;
  /** Set once close has begun; an operator can no longer end the drain then. */
  closing: Promise<void> | undefined;
}
