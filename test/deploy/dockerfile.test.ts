// The Dockerfile, read rather than built (no Docker engine here; docs/deploy.md says how to build
// it): the stages the issue asks for, a runtime that fits Kubernetes' security settings, and a
// build context that holds everything the build copies. runtime-install.test.ts runs what the
// runtime stage installs.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { copyInstruction, dockerignoreAllows, keyValues, parseDockerfile, type Stage } from './support/dockerfile.js';
import { SHIPPED_NODE_FLAGS } from '../../bench/shipped-flags.js';
import { valueAt } from './support/helm-values.js';
import { CHART_DIR, readJson, readText, readYaml, repoPath } from './support/repo.js';

const dockerfile = parseDockerfile(readText(repoPath('Dockerfile')));
const dockerignore = readText(repoPath('.dockerignore'));
const packageJson = readJson(repoPath('package.json')) as { version: string; license: string; dependencies: Record<string, string> };

function stage(name: string): Stage {
  const found = dockerfile.stages.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`the Dockerfile has no stage ${name}`);
  return found;
}
const runtime = dockerfile.stages.at(-1)!;

function argsOf(target: Stage, keyword: string): string[] {
  return target.instructions.filter((instruction) => instruction.keyword === keyword).map((instruction) => instruction.args);
}

function runtimeEnv(): Map<string, string> {
  return new Map(argsOf(runtime, 'ENV').flatMap((args) => [...keyValues(args)]));
}

describe('the Dockerfile', () => {
  it('builds every stage on a Node 24 slim image', () => {
    expect(dockerfile.globalArgs.get('NODE_IMAGE')).toMatch(/^node:24(\.\d+){0,2}(-[a-z]+)?-slim$/);
    expect(dockerfile.stages.map(({ from }) => from)).toEqual(['${NODE_IMAGE}', '${NODE_IMAGE}', '${NODE_IMAGE}']);
    expect(dockerfile.stages.map(({ name }) => name)).toEqual(['build', 'deps', 'runtime']);
  });

  it('compiles after a full npm ci, and installs the runtime dependencies with npm ci --omit=dev', () => {
    const buildRuns = argsOf(stage('build'), 'RUN').join('\n');
    expect(buildRuns).toMatch(/npm ci\b(?!.*--omit=dev)/);
    expect(buildRuns).toContain('npm run build');
    expect(argsOf(stage('deps'), 'RUN').join('\n')).toMatch(/npm ci .*--omit=dev/);
    const copies = argsOf(runtime, 'COPY').map(copyInstruction);
    expect(copies).toContainEqual({ fromStage: 'deps', sources: ['/app/node_modules'], destination: './node_modules' });
    expect(copies).toContainEqual({ fromStage: 'build', sources: ['/app/dist'], destination: './dist' });
  });

  it('runs as the numeric non-root user that the chart and the manifests expect', () => {
    const user = argsOf(runtime, 'USER').at(-1);
    expect(user).toMatch(/^[1-9]\d*(:\d+)?$/);
    expect(Number(user!.split(':')[0])).toBe(valueAt(readYaml(`${CHART_DIR}/values.yaml`), 'podSecurityContext.runAsUser'));
  });

  it('listens on all interfaces and reads its config from /etc/switchboard/switchboard.yaml, where it ships the default one', () => {
    const env = runtimeEnv();
    expect(env.get('HOST')).toBe('0.0.0.0');
    expect(env.get('SWITCHBOARD_CONFIG')).toBe('/etc/switchboard/switchboard.yaml');
    expect(argsOf(runtime, 'COPY').map(copyInstruction)).toContainEqual({
      fromStage: undefined,
      sources: ['config/switchboard.yaml'],
      destination: '/etc/switchboard/switchboard.yaml',
    });
    expect(argsOf(runtime, 'ENTRYPOINT').at(-1)).toContain('"/app/dist/cli.js"');
  });

  it('runs node with the flags the bench measures the gateway with, as `npm start` does', () => {
    const entrypoint = JSON.parse(argsOf(runtime, 'ENTRYPOINT').at(-1)!) as string[];
    const node = entrypoint.indexOf('node');
    expect(entrypoint.slice(node + 1, entrypoint.indexOf('/app/dist/cli.js'))).toEqual(SHIPPED_NODE_FLAGS);
    const { scripts } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts.start).toBe(['node', ...SHIPPED_NODE_FLAGS, 'dist/cli.js'].join(' '));
  });

  it('logs JSON lines even when the container is given a terminal', () => {
    expect(runtimeEnv().get('LOG_FORMAT')).toBe('json');
  });

  it('keeps npm writes under /tmp, so upstreams started with npx work on a read-only root filesystem', () => {
    expect(runtimeEnv().get('NPM_CONFIG_CACHE')).toMatch(/^\/tmp\//);
  });

  it('runs from /app, where the shipped config finds its upstreams among the production dependencies', () => {
    expect(argsOf(runtime, 'WORKDIR').at(-1)).toBe('/app');
    const config = readYaml(repoPath('config', 'switchboard.yaml'));
    const servers = Object.values(valueAt(config, 'mcpServers') as Record<string, { args?: string[] }>);
    const paths = servers.flatMap((server) => (server.args ?? []).filter((arg) => arg.startsWith('node_modules/')));
    expect(paths.length).toBeGreaterThan(0);
    for (const path of paths) {
      const packageName = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)![1]!;
      expect(packageJson.dependencies, path).toHaveProperty([packageName]);
      expect(existsSync(repoPath(path)), path).toBe(true);
    }
  });

  it('copies from the build context only files that exist and that .dockerignore lets in', () => {
    const sources = dockerfile.stages.flatMap(({ instructions }) =>
      instructions
        .filter(({ keyword }) => keyword === 'COPY')
        .map(({ args }) => copyInstruction(args))
        .filter(({ fromStage }) => fromStage === undefined)
        .flatMap(({ sources: paths }) => paths),
    );
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.filter((source) => !existsSync(repoPath(source)))).toEqual([]);
    expect(sources.filter((source) => !dockerignoreAllows(dockerignore, source.replace(/\/$/, '')))).toEqual([]);
    // and keeps out what must never be in the image or the context
    for (const path of ['node_modules', 'dist', '.git', '.env', 'test']) expect(dockerignoreAllows(dockerignore, path), path).toBe(false);
  });

  it('labels the image with the OCI annotations, the package version and licence', () => {
    const labels = new Map(argsOf(runtime, 'LABEL').flatMap((args) => [...keyValues(args)]));
    const expected = ['title', 'description', 'version', 'revision', 'created', 'source', 'licenses'];
    expect([...labels.keys()]).toEqual(expect.arrayContaining(expected.map((key) => `org.opencontainers.image.${key}`)));
    expect(labels.get('org.opencontainers.image.licenses')).toBe(packageJson.license);
    const versionArg = argsOf(runtime, 'ARG').find((args) => args.startsWith('VERSION='));
    expect(versionArg).toBe(`VERSION=${packageJson.version}`);
  });
});

describe('the production dependencies', () => {
  it('have no install scripts, so the image installs them completely with --ignore-scripts', () => {
    const lock = readJson(repoPath('package-lock.json')) as { packages: Record<string, { dev?: boolean; hasInstallScript?: boolean }> };
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.dev !== true && entry.hasInstallScript === true)
      .map(([path]) => path);
    expect(withScripts).toEqual([]);
  });
});
