import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { problemAt, problemsOf } from './config-test-helpers.js';

// GitHub's tools are exposed as github__<name>; search_repositories is renamed find_repos.
const SERVERS = {
  GitHub: { url: 'https://github.example.com/mcp', tools: { search_repositories: { name: 'find_repos' } } },
  memory: { command: 'memory-mcp', prefix: 'mem' },
};

const problems = (rest: Record<string, unknown>) => problemsOf(JSON.stringify({ mcpServers: SERVERS, ...rest }), { format: 'json' });

describe('rules that name a tool by the name clients see', () => {
  it('refuse an endpoint selector with the exposed name, naming the pattern to write', () => {
    const found = problems({ endpoints: { a: { path: '/a', include: ['github/github__search_code', 'memory/mem__read_*'] } } });
    expect(problemAt(found, 'endpoints.a.include[0]')).toBe(
      '"github__search_code" is an exposed name, with the prefix "github__" the gateway adds (if the upstream\'s own name is "github__search_code", ' +
        'add it under mcpServers.GitHub.tools); patterns name the upstream\'s own name: write "github/search_code"',
    );
    expect(problemAt(found, 'endpoints.a.include[1]')).toMatch(/write "memory\/read_\*"$/);
  });

  it('refuse a selector or policy pattern with a renamed tool, naming the upstream name', () => {
    const found = problems({
      endpoints: { a: { path: '/a', exclude: ['GitHub/find_repos'] } },
      policy: { rules: [{ deny: ['github/find_repos'] }] },
    });
    expect(problemAt(found, 'endpoints.a.exclude[0]')).toMatch(/"find_repos" is the name clients see for the tool "search_repositories" of "GitHub".*write "GitHub\/search_repositories"$/);
    expect(problemAt(found, 'policy.rules[0].deny[0]')).toMatch(/write "github\/search_repositories"$/);
  });

  it('refuse a tool limit keyed by the exposed or the renamed name', () => {
    const found = problems({ limits: { servers: { GitHub: { tools: { github__search_code: { requestsPerMinute: 5 }, find_repos: { requestsPerMinute: 5 } } } } } });
    expect(problemAt(found, 'limits.servers.GitHub.tools.github__search_code')).toMatch(/limits name the upstream's own name: write tools\.search_code$/);
    expect(problemAt(found, 'limits.servers.GitHub.tools.find_repos')).toMatch(/write tools\.search_repositories$/);
  });

  it('accept the upstream names, and patterns whose server part is a glob', () => {
    const text = JSON.stringify({
      mcpServers: SERVERS,
      endpoints: { a: { path: '/a', include: ['github/search_repositories', '*/github__x', 'memory/*'] } },
      limits: { servers: { GitHub: { tools: { search_code: { requestsPerMinute: 5 } } } } },
    });
    expect(parseConfigText(text, 'json', {}).endpoints.a?.include).toHaveLength(3);
  });

  it('accept a prefixed name that the server\'s tools overrides list as an upstream name', () => {
    const servers = { slack: { command: 'slack-mcp', tools: { slack_post_message: {} } } };
    const text = JSON.stringify({ namespace: { separator: '_' }, mcpServers: servers, policy: { rules: [{ allow: ['slack/slack_post_message'] }] } });
    expect(parseConfigText(text, 'json', {}).policy?.rules[0]?.allow).toEqual(['slack/slack_post_message']);
  });

  it('accept a name that an override also uses as an upstream name', () => {
    const servers = { ...SERVERS, GitHub: { url: 'https://github.example.com/mcp', tools: { a: { name: 'b' }, b: { name: 'c' } } } };
    const text = JSON.stringify({ mcpServers: servers, policy: { rules: [{ allow: ['github/b'] }] } });
    expect(parseConfigText(text, 'json', {}).policy?.rules[0]?.allow).toEqual(['github/b']);
  });
});
