// Config file -> validated, defaulted, frozen Config. The steps, in order: parse the text; read a
// VS Code mcp.json's `servers` as `mcpServers` (vscode-shape.ts); replace ${VAR} in string values (interpolate.ts); rewrite other clients' aliases (aliases.ts); apply
// PORT/HOST/REDIS_URL and --host/--port (overrides.ts); validate and default (schema.ts), and check
// what spans keys (cross-key.ts) on whatever parsed. Every step reports problems instead of
// stopping at the first, so one run shows everything to fix.
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { normaliseServerAliases } from './aliases.js';
import { ConfigError, type ConfigProblem } from './errors.js';
import { crossKeyProblems } from './cross-key.js';
import { deepFreeze } from './freeze.js';
import { interpolateTree } from './interpolate.js';
import { problemsFromIssues } from './issues.js';
import { formatKeyPath, isPlainObject, type PathProblem } from './key-path.js';
import { applyOverrides, type ConfigOverrides } from './overrides.js';
import { formatOfFile, parseText, type ConfigFormat } from './parse-text.js';
import { partsOf } from './parts.js';
import { configSchema, type Config } from './schema.js';
import { withSecretFiles } from './secret-files.js';
import { fromVsCodeShape } from './vscode-shape.js';

export { ConfigError, type ConfigProblem } from './errors.js';
export type { ConfigOverrides } from './overrides.js';
export type { ConfigFormat } from './parse-text.js';

/** Reads and validates a config file; throws ConfigError naming the file on any problem. */
export async function loadConfig(
  file: string,
  env: NodeJS.ProcessEnv = process.env,
  overrides: ConfigOverrides = {},
): Promise<Config> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError([{ path: '', message: `cannot read config file ${file}: ${reason}` }]);
  }
  try {
    return parseConfigText(text, formatOfFile(file), env, overrides, file);
  } catch (error) {
    throw error instanceof ConfigError ? error.withSource(file) : error;
  }
}

/**
 * The pure core of loadConfig: no file system, the environment passed in. `file`, where the text
 * came from, is what relative paths in it (pinning.lockFile) are relative to.
 */
export function parseConfigText(
  text: string,
  format: ConfigFormat,
  env: NodeJS.ProcessEnv = process.env,
  overrides: ConfigOverrides = {},
  file?: string,
): Config {
  const parsed = parseText(text, format);
  if (!parsed.ok) throw new ConfigError([toConfigProblem(parsed.problem)]);
  // An empty (or comments-only) YAML file is an empty config: every section has defaults.
  const root = parsed.tree ?? {};
  if (!isPlainObject(root)) {
    throw new ConfigError([{ path: '', message: 'expected a mapping of sections (server, mcpServers, ...) at the top level' }]);
  }

  const secrets = withSecretFiles(env);
  const vsCode = fromVsCodeShape(root);
  const interpolated = interpolateTree(vsCode.tree, secrets.env);
  const reportedByVsCode = new Set(vsCode.reported.map(formatKeyPath));
  const interpolationProblems = interpolated.problems.filter((problem) => !reportedByVsCode.has(formatKeyPath(problem.path)));
  const aliased = normaliseServerAliases(interpolated.tree);
  const { tree, sources } = applyOverrides(aliased.tree, env, overrides);
  const result = configSchema.safeParse(file === undefined ? tree : withLockFileNamedAfter(file, tree));
  // Run on what parsed, whether or not the rest did, so they are listed beside field-level problems.
  const crossKey = crossKeyProblems(partsOf(tree));

  // A value whose variable was unset, or a server whose `type` was wrong, is reported once, by the
  // step that knows why; the schema would only add a vaguer second line about the same key.
  const alreadyReported = new Set(
    [...interpolated.problems.map((problem) => problem.path), ...vsCode.reported, ...aliased.reportedServers].map(formatKeyPath),
  );
  const schemaProblems = result.success
    ? []
    : problemsFromIssues(result.error.issues, tree).filter((problem) => !alreadyReported.has(formatKeyPath(problem.path)));

  const secretProblems: PathProblem[] = secrets.problems.map((message) => ({ path: [], message }));
  const problems = [...vsCode.problems, ...interpolationProblems, ...secretProblems, ...aliased.problems, ...schemaProblems, ...crossKey].map((problem) => {
    const formatted = toConfigProblem(problem);
    const source = sources.get(formatted.path);
    return source === undefined ? formatted : { ...formatted, message: `${formatted.message} (from ${source})` };
  });
  if (problems.length > 0 || !result.success) throw new ConfigError(problems);
  if (file !== undefined) result.data.pinning.lockFile = resolve(dirname(file), result.data.pinning.lockFile);
  return deepFreeze(result.data);
}

/**
 * The default lock file is named after the config file (switchboard.yaml -> switchboard.lock.yaml),
 * so two configs side by side do not share one. Set before validation, where an explicit
 * pinning.lockFile can still be told from the default.
 */
function withLockFileNamedAfter(file: string, tree: Record<string, unknown>): Record<string, unknown> {
  const lockFile = `${basename(file).replace(/\.(ya?ml|json)$/i, '')}.lock.yaml`;
  const { pinning } = tree;
  if (pinning === undefined) return { ...tree, pinning: { lockFile } };
  if (typeof pinning === 'string') return { ...tree, pinning: { mode: pinning, lockFile } };
  if (isPlainObject(pinning) && pinning.lockFile === undefined) return { ...tree, pinning: { ...pinning, lockFile } };
  return tree;
}

function toConfigProblem({ path, message }: PathProblem): ConfigProblem {
  return { path: formatKeyPath(path), message };
}
