// A Dockerfile read as its stages and instructions, and a .dockerignore read as Docker applies it:
// enough to check what the image's build copies and runs, on a machine without a Docker engine.

export interface Instruction {
  /** Upper case: FROM, RUN, COPY... */
  readonly keyword: string;
  /** The rest of the instruction, continuation lines joined. */
  readonly args: string;
}

export interface Stage {
  readonly name: string;
  readonly from: string;
  readonly instructions: readonly Instruction[];
}

export interface Dockerfile {
  /** ARGs before the first FROM, with their defaults. */
  readonly globalArgs: ReadonlyMap<string, string>;
  readonly stages: readonly Stage[];
}

export function parseDockerfile(text: string): Dockerfile {
  const logicalLines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const globalArgs = new Map<string, string>();
  const stages: { name: string; from: string; instructions: Instruction[] }[] = [];
  for (const line of logicalLines) {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const instruction = { keyword: keyword.toUpperCase(), args: args.replace(/\s+/g, ' ') };
    if (instruction.keyword === 'FROM') {
      const [from = '', , name = String(stages.length)] = instruction.args.split(' ');
      stages.push({ name, from, instructions: [] });
    } else if (stages.length === 0) {
      const [, name = '', value = ''] = /^([A-Za-z_][A-Za-z0-9_]*)(?:=(.*))?$/.exec(instruction.args) ?? [];
      if (instruction.keyword === 'ARG') globalArgs.set(name, unquote(value));
    } else {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return { globalArgs, stages };
}

/** `KEY=value KEY2="value 2"` (ENV, LABEL) as a map. */
export function keyValues(args: string): Map<string, string> {
  const pairs = new Map<string, string>();
  for (const [, key, value] of args.matchAll(/([A-Za-z0-9_.-]+)=("(?:[^"\\]|\\.)*"|\S*)/g)) pairs.set(key!, unquote(value!));
  return pairs;
}

export interface CopyInstruction {
  /** The stage it copies from, or undefined for the build context. */
  readonly fromStage: string | undefined;
  readonly sources: readonly string[];
  readonly destination: string;
}

export function copyInstruction(args: string): CopyInstruction {
  const words = args.split(' ');
  const flags = words.filter((word) => word.startsWith('--'));
  const paths = words.filter((word) => !word.startsWith('--'));
  const from = flags.find((flag) => flag.startsWith('--from='));
  return { fromStage: from?.slice('--from='.length), sources: paths.slice(0, -1), destination: paths.at(-1) ?? '' };
}

/**
 * Whether .dockerignore lets `path` (relative, forward slashes) into the build context: the last
 * pattern that matches it, or one of its parent directories, decides; `!` lets in.
 */
export function dockerignoreAllows(dockerignore: string, path: string): boolean {
  let allowed = true;
  for (const raw of dockerignore.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const negated = line.startsWith('!');
    const pattern = (negated ? line.slice(1) : line).replace(/^\/+|\/+$/g, '');
    if (matchesPathOrParent(pattern, path)) allowed = negated;
  }
  return allowed;
}

function matchesPathOrParent(pattern: string, path: string): boolean {
  const regex = new RegExp(
    `^${pattern
      .split('/')
      .map((segment) => segment.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]'))
      .join('/')}$`,
  );
  const segments = path.split('/');
  return segments.some((_, index) => regex.test(segments.slice(0, index + 1).join('/')));
}

function unquote(value: string): string {
  return value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}
