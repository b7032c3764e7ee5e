// The light load: plain HTTP POSTs (http-load.ts) for HTTP targets, the raw pipe (stdio-load.ts)
// for the stdio server spoken to directly. Both cost this process little per call, so on two cores
// what the table shows is the target, not the load.
import { openHttpCallers } from './http-load.js';
import type { LoadGenerator } from './load.js';
import { openStdioCallers } from './stdio-load.js';

export const lightLoad: LoadGenerator = {
  name: 'light',
  supports: () => true,
  async open(target, count, operation) {
    const { endpoint } = target;
    if (endpoint.kind === 'stdio') return openStdioCallers(endpoint.peer, target.tool, count, operation);
    return openHttpCallers(endpoint.url, target, count, operation);
  },
};
