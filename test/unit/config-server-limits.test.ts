// limits.servers: per-server and per-tool requests per minute and the concurrency cap, checked
// against mcpServers, each problem at its key path.
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { problemAt, problemsOf } from './config-test-helpers.js';

const parse = (text: string) => parseConfigText(text, 'yaml', {});

const SERVERS = `
mcpServers:
  GitHub: { command: gh }
  "My Notes": { command: notes }
  search: { url: "https://search.example.com/mcp" }
`;

describe('per-server limits in the config', () => {
  it('accepts rates, per-tool rates and a concurrency cap, keyed by names as written, with numbers as strings', () => {
    const config = parse(`${SERVERS}
limits:
  requestsPerMinute: 600
  servers:
    GitHub:
      requestsPerMinute: "60"
      tools:
        "search.code": { requestsPerMinute: 10 }
    "My Notes": { maxConcurrent: 4, maxQueued: 0, queueTimeoutMs: 2500 }
`);
    expect(config.limits).toEqual({
      requestsPerMinute: 600,
      servers: {
        GitHub: { requestsPerMinute: 60, tools: { 'search.code': { requestsPerMinute: 10 } } },
        'My Notes': { maxConcurrent: 4, maxQueued: 0, queueTimeoutMs: 2500 },
      },
    });
  });

  it('bounds the queue of a capped server by default', () => {
    const config = parse(`${SERVERS}\nlimits: { servers: { search: { maxConcurrent: 2 } } }\n`);
    expect(config.limits.servers?.search).toEqual({ maxConcurrent: 2, maxQueued: 100, queueTimeoutMs: 10_000 });
  });

  it('leaves servers out when no server has limits', () => {
    expect(parse(`${SERVERS}\nlimits: { requestsPerMinute: 5 }\n`).limits).toEqual({ requestsPerMinute: 5 });
  });

  it('refuses a server that mcpServers does not have, suggesting the name it most likely meant', () => {
    const problems = problemsOf(`${SERVERS}\nlimits: { servers: { github: { requestsPerMinute: 5 }, nowhere: { maxConcurrent: 1 } } }\n`);
    expect(problemAt(problems, 'limits.servers.github')).toMatch(/no server "github" in mcpServers; did you mean "GitHub"\?/);
    expect(problemAt(problems, 'limits.servers.nowhere')).toMatch(/^no server "nowhere" in mcpServers \(/);
    expect(problems).toHaveLength(2);
  });

  it('quotes a key path of a name with spaces', () => {
    const problems = problemsOf(`${SERVERS}\nlimits: { servers: { "My notes": { requestsPerMinute: 5 } } }\n`);
    expect(problemAt(problems, 'limits.servers["My notes"]')).toMatch(/did you mean "My Notes"\?/);
  });

  it('refuses a server named __proto__ rather than dropping it', () => {
    const problems = problemsOf(`${SERVERS}\nlimits: { servers: { __proto__: { requestsPerMinute: 5 } } }\n`, { format: 'yaml' });
    expect(problemAt(problems, 'limits.servers.__proto__')).toMatch(/cannot be named "__proto__"/);
  });

  it('refuses rates and caps that are not positive whole numbers', () => {
    const problems = problemsOf(`${SERVERS}
limits:
  servers:
    GitHub: { requestsPerMinute: 0, maxConcurrent: 1.5, tools: { search: { requestsPerMinute: -1 } } }
    search: { maxConcurrent: 1, maxQueued: -1, queueTimeoutMs: 0 }
`);
    expect(problemAt(problems, 'limits.servers.GitHub.requestsPerMinute')).toMatch(/>0|positive|greater/i);
    expect(problemAt(problems, 'limits.servers.GitHub.maxConcurrent')).toMatch(/int/i);
    expect(problemAt(problems, 'limits.servers.GitHub.tools.search.requestsPerMinute')).toMatch(/>0|positive|greater/i);
    expect(problemAt(problems, 'limits.servers.search.maxQueued')).toMatch(/>=0|greater/i);
    expect(problemAt(problems, 'limits.servers.search.queueTimeoutMs')).toMatch(/>0|positive|greater/i);
  });

  it('refuses queue settings without a cap to queue for', () => {
    const problems = problemsOf(`${SERVERS}\nlimits: { servers: { GitHub: { requestsPerMinute: 5, maxQueued: 10, queueTimeoutMs: 100 } } }\n`);
    expect(problemAt(problems, 'limits.servers.GitHub.maxQueued')).toMatch(/only applies with maxConcurrent/);
    expect(problemAt(problems, 'limits.servers.GitHub.queueTimeoutMs')).toMatch(/only applies with maxConcurrent/);
  });

  it('refuses unknown keys in a server limit and in a tool limit', () => {
    const problems = problemsOf(`${SERVERS}\nlimits: { servers: { GitHub: { perMinute: 5, tools: { search: { maxConcurrent: 1 } } } } }\n`);
    expect(problemAt(problems, 'limits.servers.GitHub.perMinute')).toBe('unknown key');
    expect(problemAt(problems, 'limits.servers.GitHub.tools.search.maxConcurrent')).toBe('unknown key');
    expect(problemAt(problems, 'limits.servers.GitHub.tools.search.requestsPerMinute')).toBe('required');
  });

  it('accepts limits for a disabled server, which apply once it is enabled', () => {
    const config = parse(`mcpServers:\n  off: { command: x, enabled: false }\nlimits: { servers: { off: { requestsPerMinute: 1 } } }\n`);
    expect(config.limits.servers?.off).toEqual({ requestsPerMinute: 1 });
  });
});
