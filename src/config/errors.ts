// One error type for everything wrong with a config, so that `switchboard validate` and startup can
// print every problem at once instead of the first one.

export interface ConfigProblem {
  /** Dotted key path (`mcpServers.search.url`); empty when the problem is the file as a whole. */
  readonly path: string;
  readonly message: string;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  constructor(
    readonly problems: readonly ConfigProblem[],
    /** The file as the user named it; prefixes each printed line. */
    readonly source?: string,
  ) {
    super(formatProblems(problems, source));
  }

  /** One line per problem: `config.yaml: mcpServers.search.url: must be an http(s) URL`. */
  format(): string {
    return formatProblems(this.problems, this.source);
  }

  withSource(source: string): ConfigError {
    return new ConfigError(this.problems, source);
  }
}

function formatProblems(problems: readonly ConfigProblem[], source: string | undefined): string {
  return problems
    .map(({ path, message }) => [source, path, message].filter((part) => part !== undefined && part !== '').join(': '))
    .join('\n');
}
