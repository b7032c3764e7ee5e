// The published MCP Apps example servers (ext-apps' examples, dev dependencies) as stdio upstreams:
// server-basic-vanillajs (tool get-time, its UI ui://get-time/mcp-app.html) and
// server-system-monitor (get-system-info with ui://system-monitor/mcp-app.html, and the app-only
// poll-system-stats that its UI calls by that name).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { StdioUpstream } from './upstreams.js';

const { resolve: resolvePackage } = createRequire(import.meta.url);

/** The package's bin (dist/index.js): its exports name only the server module beside it. */
function appServer(name: string): StdioUpstream {
  const bin = join(dirname(resolvePackage(`@modelcontextprotocol/${name}`)), 'index.js');
  return { command: process.execPath, args: [bin, '--stdio'], env: {} };
}

export function basicAppStdio(): StdioUpstream {
  return appServer('server-basic-vanillajs');
}

export function systemMonitorStdio(): StdioUpstream {
  return appServer('server-system-monitor');
}
