// Tests that need a program from the system (redis-server, redis-sentinel, chromium, kubectl) skip
// on a developer's machine without it, saying what to install. In CI (`.ci/run`, which installs
// them, sets SWITCHBOARD_REQUIRE_TOOLS=1) a missing program fails the file instead: a skip there
// would let a suite pass that never ran.
export function skipWithout(available: boolean, what: string): boolean {
  if (available) return false;
  if (process.env.SWITCHBOARD_REQUIRE_TOOLS === '1') throw new Error(`${what} is required here (SWITCHBOARD_REQUIRE_TOOLS=1) and missing`);
  return true;
}
