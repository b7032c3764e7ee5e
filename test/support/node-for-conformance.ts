// A Node that can run the conformance suite (0.1.14+ needs 22 or later), while the gateway and
// every other test run on the machine's own Node. It is fetched from the npm registry (the
// `node-<platform>-<arch>` packages carry the official binaries) into a cache directory of its
// own, not into the project's node_modules: a `node` devDependency would put its binary first on
// the PATH of every npm script and silently move `npm test` and `npm start` to that Node.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAJOR = 24;
const CACHE_DIR = fileURLToPath(new URL('../../node_modules/.cache/switchboard-node24/', import.meta.url));
const PACKAGE = `node-${process.platform}-${process.arch}`;
const CACHED_NODE = join(CACHE_DIR, 'node_modules', PACKAGE, 'bin', 'node');
const MIN_MAJOR = 22;

/**
 * CONFORMANCE_NODE if set; else this Node if it is recent enough; else a Node 24 from the npm
 * registry (installed once, then cached). Throws, saying how to get one, when none can be had.
 */
export function nodeForConformance(): string {
  const fromEnvironment = process.env.CONFORMANCE_NODE;
  if (fromEnvironment) return checked(fromEnvironment);
  if (majorOf(process.version) >= MIN_MAJOR) return process.execPath;
  if (!existsSync(CACHED_NODE)) install();
  return checked(CACHED_NODE);
}

function install(): void {
  mkdirSync(CACHE_DIR, { recursive: true });
  try {
    execFileSync(
      'npm',
      ['install', '--prefix', CACHE_DIR, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', `${PACKAGE}@${MAJOR}`],
      { stdio: ['ignore', 'ignore', 'pipe'], timeout: 180_000 },
    );
  } catch (error) {
    throw new Error(
      `the conformance suite needs Node >= ${MIN_MAJOR}; installing ${PACKAGE}@${MAJOR} from the npm registry failed ` +
        `(${error instanceof Error ? error.message : String(error)}). Set CONFORMANCE_NODE to a Node >= ${MIN_MAJOR} binary instead.`,
    );
  }
}

function checked(node: string): string {
  let version: string;
  try {
    version = execFileSync(node, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim();
  } catch (error) {
    throw new Error(`${node} does not run here: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (majorOf(version) < MIN_MAJOR) throw new Error(`${node} is ${version}; the conformance suite needs Node >= ${MIN_MAJOR}`);
  return node;
}

function majorOf(version: string): number {
  return Number(/^v?(\d+)\./.exec(version)?.[1] ?? 0);
}
