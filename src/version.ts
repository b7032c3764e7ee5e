// The gateway's own name and version, read once from package.json (works from src/ and dist/).
import { readFileSync } from 'node:fs';

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  name: string;
  version: string;
};

export const GATEWAY_VERSION: string = packageJson.version;

/** How the gateway introduces itself, to clients (serverInfo) and to upstreams (clientInfo). */
export const GATEWAY_IMPLEMENTATION = Object.freeze({ name: 'switchboard', version: GATEWAY_VERSION });
