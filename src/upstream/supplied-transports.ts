// Upstreams whose transport code hands over rather than the config: how tests run the real gateway
// against an in-memory SDK server, with no child process and no socket. Only code can supply one
// (runGateway's deps), never a config file, since a deployment has no use for it. The server still
// needs its stdio entry in mcpServers (its command is never run): the transport stands in for that
// child's pipes, so the upstream is local to the replica in every other respect, as a child is.
import type { Transport } from '@modelcontextprotocol/client';

/**
 * A fresh transport for each connection (a reconnect asks again) to the named shared upstream, or
 * undefined to connect as configured. Session-isolated upstreams always connect as configured.
 */
export type SuppliedTransports = (server: string) => Transport | undefined;
