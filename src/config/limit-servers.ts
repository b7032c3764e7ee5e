// limits.servers names servers by their config names; a name that is not one is a typo that would
// leave a server unlimited without a word, so it is refused, with the configured name it most
// likely meant (the same slug: `github` for `GitHub`, `my_notes` for `My Notes`). A disabled
// server may have limits: they apply once it is enabled. Pure: the schema reports what this returns.
import type { PathProblem } from './key-path.js';
import { serverSlug } from './server-names.js';

export function limitServerProblems(limited: Readonly<Record<string, unknown>>, configured: readonly string[]): PathProblem[] {
  const names = new Set(configured);
  const problems: PathProblem[] = [];
  for (const name of Object.keys(limited)) {
    if (names.has(name)) continue;
    const slug = serverSlug(name);
    const meant = configured.find((candidate) => serverSlug(candidate) === slug);
    problems.push({
      path: ['limits', 'servers', name],
      message: `no server "${name}" in mcpServers${meant === undefined ? '' : `; did you mean "${meant}"?`} (limits name servers as mcpServers writes them)`,
    });
  }
  return problems;
}
