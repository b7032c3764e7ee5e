// Shared by the config-*.test.ts files: run the loader's pure core and get its problems back.
import { ConfigError, parseConfigText, type ConfigFormat, type ConfigOverrides, type ConfigProblem } from '../../src/config/load.js';

export function problemsOf(
  text: string,
  { format = 'yaml', env = {}, overrides = {} }: { format?: ConfigFormat; env?: NodeJS.ProcessEnv; overrides?: ConfigOverrides } = {},
): readonly ConfigProblem[] {
  try {
    parseConfigText(text, format, env, overrides);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected the config to be rejected');
}

/** The problem at one key path; fails the test when there is none. */
export function problemAt(problems: readonly ConfigProblem[], path: string): string {
  const found = problems.filter((problem) => problem.path === path);
  if (found.length === 0) throw new Error(`no problem at "${path}"; got ${JSON.stringify(problems)}`);
  return found.map((problem) => problem.message).join('\n');
}
