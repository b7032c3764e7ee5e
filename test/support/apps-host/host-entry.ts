// What the browser host page loads: ext-apps' AppBridge (the host side of MCP Apps) and the
// official MCP client, bundled for the browser by apps-host.ts.
export { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
export { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
