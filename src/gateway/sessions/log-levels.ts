// The syslog levels of MCP logging, least to most severe, and the per-session filter.

const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type LogLevel = (typeof LEVELS)[number];

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LEVELS as readonly string[]).includes(value);
}

export function logLevels(): readonly LogLevel[] {
  return LEVELS;
}

/** True when `level` is at least as severe as `threshold`. */
export function atLeast(level: LogLevel, threshold: LogLevel): boolean {
  return LEVELS.indexOf(level) >= LEVELS.indexOf(threshold);
}

/**
 * Whether a notifications/message goes to a session that asked for `sessionLevel`. A session that
 * never called logging/setLevel gets what the upstreams send (the spec leaves the default to the
 * server); a message without a valid level is passed on rather than silently dropped.
 */
export function admitsLogMessage(message: { method?: unknown; params?: unknown }, sessionLevel: string | undefined): boolean {
  if (message.method !== 'notifications/message' || !isLogLevel(sessionLevel)) return true;
  const level = (message.params as { level?: unknown } | undefined)?.level;
  return !isLogLevel(level) || atLeast(level, sessionLevel);
}
