// The Helm chart rendered by a real helm (v4, from a devDependency: support/helm-binary.ts):
// `helm lint` with its default values and each ci/ values file, values.schema.json enforced by helm
// itself, and the manifests of `helm template` checked against the Kubernetes schemas and for what
// the chart promises: the admin listener on a port of its own, behind a ClusterIP Service of its own,
// never on the main Service or the Ingress, and reachable through a NetworkPolicy only from
// networkPolicy.adminFrom.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { helmBinary, runHelm, type HelmResult } from './support/helm-binary.js';
import { mergeValues, valueAt } from './support/helm-values.js';
import { describeObject, kubernetesSchemaProblems } from './support/kubernetes-schemas.js';
import { readKustomization } from './support/kustomize.js';
import { CHART_DIR, DEPLOY_DIR, isPlainObject, readJson, readYaml, readYamlDocuments, type PlainObject } from './support/repo.js';

const RELEASE = 'switchboard';
const NAMESPACE = 'mcp';
const CI_DIR = join(CHART_DIR, 'ci');
/** ci/*.yaml: the values files `helm lint` and chart testing take as examples. */
const CI_VALUES = readdirSync(CI_DIR).filter((name) => name.endsWith('.yaml')).sort();
const FULL_VALUES = join(CI_DIR, 'full-values.yaml');
/** Custom resources of the Prometheus Operator: no Kubernetes schema, checked on their own below. */
const OPERATOR_API = 'monitoring.coreos.com/v1';
/** What a pod's environment gives the gateway's ${VAR} references in ci/full-values.yaml. */
const POD_ENV = { REDIS_URL: 'redis://redis:6379', SEARCH_TOKEN: 'token', ARCHIVE_TOKEN: 'token' };

const helm = await helmBinary();

function defaults(): PlainObject {
  return readYaml(join(CHART_DIR, 'values.yaml')) as PlainObject;
}

/** The values a release gets from values.yaml and one values file, as helm merges them. */
function valuesWith(file: string): PlainObject {
  return mergeValues(defaults(), readYaml(file) as PlainObject);
}

function template(args: readonly string[]): Promise<HelmResult> {
  return runHelm(helm, ['template', RELEASE, CHART_DIR, '--namespace', NAMESPACE, ...args]);
}

/** The objects `helm template` renders with these arguments; a failure throws with helm's words. */
async function render(args: readonly string[] = []): Promise<PlainObject[]> {
  const { code, stdout, stderr } = await template(args);
  if (code !== 0) throw new Error(`helm template ${args.join(' ')} failed: ${stderr}`);
  return parseAllDocuments(stdout).flatMap((document) => {
    if (document.errors.length > 0) throw new Error(`helm template ${args.join(' ')}: ${document.errors.map((error) => error.message).join('; ')}`);
    const object: unknown = document.toJS();
    if (object === null || object === undefined) return [];
    if (!isPlainObject(object)) throw new Error(`helm template ${args.join(' ')} rendered a document that is not an object`);
    return [object];
  });
}

function find(objects: readonly PlainObject[], kind: string, name: string): PlainObject {
  const found = objects.find((object) => object.kind === kind && valueAt(object, 'metadata.name') === name);
  if (found === undefined) throw new Error(`no ${kind}/${name} among ${objects.map(describeObject).join(', ')}`);
  return found;
}

function ofKind(objects: readonly PlainObject[], kind: string): PlainObject[] {
  return objects.filter((object) => object.kind === kind);
}

/** A file a ConfigMap carries (its name has a dot, so valueAt cannot reach it). */
function configMapFile(configMap: PlainObject, file: string): string {
  const text = (valueAt(configMap, 'data') as PlainObject | undefined)?.[file];
  if (typeof text !== 'string') throw new Error(`${describeObject(configMap)} has no ${file}`);
  return text;
}

/** The gateway's config file, as the chart's ConfigMap carries it. */
function gatewayConfigText(objects: readonly PlainObject[], fullname: string): string {
  return configMapFile(find(objects, 'ConfigMap', fullname), 'switchboard.yaml');
}

function gatewayConfig(objects: readonly PlainObject[], fullname: string): PlainObject {
  return parse(gatewayConfigText(objects, fullname)) as PlainObject;
}

function container(deployment: PlainObject): PlainObject {
  const containers = valueAt(deployment, 'spec.template.spec.containers') as PlainObject[];
  return containers.find((candidate) => candidate.name === 'switchboard')!;
}

function ports(object: PlainObject, path: string): PlainObject[] {
  return (valueAt(object, path) as PlainObject[] | undefined) ?? [];
}

function isSubset(labels: unknown, of: unknown): boolean {
  return isPlainObject(labels) && isPlainObject(of) && Object.entries(labels).every(([key, value]) => of[key] === value);
}

/** A chart install with its values, the name its objects get, and what helm rendered. */
interface Case {
  readonly label: string;
  readonly values: PlainObject;
  readonly fullname: string;
  readonly objects: PlainObject[];
}

let cases: Case[];
beforeAll(async () => {
  const rendered = await Promise.all([render(), ...CI_VALUES.map((name) => render(['--values', join(CI_DIR, name)]))]);
  cases = [
    { label: 'default values', values: defaults(), fullname: RELEASE, objects: rendered[0]! },
    ...CI_VALUES.map((name, index) => {
      const values = valuesWith(join(CI_DIR, name));
      return { label: `ci/${name}`, values, fullname: String(values.fullnameOverride || RELEASE), objects: rendered[index + 1]! };
    }),
  ];
});

function fullCase(): Case {
  return cases.find(({ label }) => label === 'ci/full-values.yaml')!;
}

describe('the Helm chart, rendered by helm', () => {
  it('has example values files in ci/ for helm lint and chart testing', () => {
    expect(CI_VALUES).toContain('full-values.yaml');
  });

  it.each([
    { label: 'its default values', args: [] },
    ...CI_VALUES.map((name) => ({ label: `ci/${name}`, args: ['--values', join(CI_DIR, name)] })),
  ])('passes helm lint --strict with $label', async ({ args }) => {
    const { code, stdout, stderr } = await runHelm(helm, ['lint', '--strict', CHART_DIR, ...args]);
    expect({ code, stderr }, stdout).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
  });

  it('fails helm lint and helm template on values that values.schema.json refuses', async () => {
    const [lintNegative, templateNegative, misspelt] = await Promise.all([
      runHelm(helm, ['lint', CHART_DIR, '--set', 'admin.port=-1']),
      template(['--set', 'admin.port=-1']),
      template(['--set', 'admin.prot=8082']),
    ]);
    expect(lintNegative.code).not.toBe(0);
    expect(lintNegative.stdout + lintNegative.stderr).toMatch(/\/admin\/port'?: minimum: got -1/);
    expect(templateNegative.code).not.toBe(0);
    expect(templateNegative.stderr).toMatch(/\/admin\/port'?: minimum: got -1/);
    expect(misspelt.code).not.toBe(0);
    expect(misspelt.stderr).toContain("additional properties 'prot' not allowed");
  });

  it('renders only objects that are valid against the Kubernetes schemas', () => {
    for (const { label, objects } of cases) {
      const problems = objects
        .filter((object) => object.apiVersion !== OPERATOR_API)
        .flatMap((object) => kubernetesSchemaProblems(object).map((problem) => `${describeObject(object)}: ${problem}`));
      expect(problems, label).toEqual([]);
    }
  });

  it('renders the objects its values ask for', () => {
    const [byDefault, full] = [cases[0]!, fullCase()];
    expect(byDefault.objects.map(describeObject).sort()).toEqual([
      'ConfigMap/switchboard',
      'Deployment/switchboard',
      'PodDisruptionBudget/switchboard',
      'Service/switchboard',
      'Service/switchboard-admin',
      'ServiceAccount/switchboard',
    ]);
    // ci/full-values.yaml turns every optional object on, and uses a ServiceAccount made elsewhere.
    expect(full.objects.map(describeObject).sort()).toEqual(
      [
        'ConfigMap/',
        'ConfigMap/-dashboard',
        'Deployment/',
        'HorizontalPodAutoscaler/',
        'Ingress/',
        'NetworkPolicy/',
        'PodDisruptionBudget/',
        'PrometheusRule/',
        'Service/',
        'Service/-admin',
        'ServiceMonitor/',
      ].map((name) => name.replace('/', `/${full.fullname}`)),
    );
    for (const { label, objects } of cases) {
      expect(new Set(objects.map((object) => valueAt(object, 'metadata.namespace') ?? NAMESPACE)), label).toEqual(new Set([NAMESPACE]));
    }
  });

  it('writes a gateway config that the gateway accepts, with the admin listener on all interfaces at admin.port', () => {
    for (const { label, values, fullname, objects } of cases) {
      expect(valueAt(values, 'admin.enabled'), label).toBe(true); // admin.enabled false: its own test below
      const { admin, ...rest } = gatewayConfig(objects, fullname);
      const { admin: configured, ...expected } = values.config as PlainObject;
      // Everything but admin as `config` says (helm, like mergeValues, drops keys set to null) ...
      expect(rest, label).toEqual(expected);
      // ... and admin's place from admin.*, over whatever config.admin says; config.admin keeps the rest (scope).
      expect(admin, label).toEqual({ ...(configured as object | undefined), enabled: true, host: '0.0.0.0', port: valueAt(values, 'admin.port') });
      expect(() => parseConfigText(gatewayConfigText(objects, fullname), 'yaml', POD_ENV), label).not.toThrow();
    }
  });

  it("opens the gateway's port and the admin port on its container", () => {
    for (const { label, values, fullname, objects } of cases) {
      const gateway = container(find(objects, 'Deployment', fullname));
      expect(gateway.ports, label).toEqual([
        { name: 'http', containerPort: values.containerPort, protocol: 'TCP' },
        { name: 'admin', containerPort: valueAt(values, 'admin.port'), protocol: 'TCP' },
      ]);
      expect(gateway.env, label).toContainEqual({ name: 'PORT', value: String(values.containerPort) });
    }
  });

  it('serves the admin port on a ClusterIP Service of its own, never on the main Service or the Ingress', () => {
    for (const { label, values, fullname, objects } of cases) {
      const deployment = find(objects, 'Deployment', fullname);
      const podLabels = valueAt(deployment, 'spec.template.metadata.labels');
      const adminPort = valueAt(values, 'admin.port');

      const adminService = find(objects, 'Service', `${fullname}-admin`);
      expect(valueAt(adminService, 'spec.type'), label).toBe('ClusterIP');
      expect(ports(adminService, 'spec.ports'), label).toEqual([{ name: 'admin', port: adminPort, targetPort: 'admin', protocol: 'TCP' }]);
      expect(isSubset(valueAt(adminService, 'spec.selector'), podLabels), label).toBe(true);

      const mainService = find(objects, 'Service', fullname);
      expect(valueAt(mainService, 'spec.type'), label).toBe(valueAt(values, 'service.type'));
      expect(ports(mainService, 'spec.ports'), label).toEqual([{ name: 'http', port: valueAt(values, 'service.port'), targetPort: 'http', protocol: 'TCP' }]);
      // No other Service reaches the admin port, by name or by number.
      const others = ofKind(objects, 'Service').filter((service) => service !== adminService);
      const reaching = others.flatMap((service) =>
        ports(service, 'spec.ports')
          .filter((port) => port.targetPort === 'admin' || port.targetPort === adminPort || (port.targetPort === undefined && port.port === adminPort))
          .map(() => describeObject(service)),
      );
      expect(reaching, label).toEqual([]);

      // Every Ingress path goes to the main Service's http port.
      const backends = ofKind(objects, 'Ingress').flatMap((ingress) =>
        (valueAt(ingress, 'spec.rules') as PlainObject[]).flatMap((rule) => valueAt(rule, 'http.paths') as PlainObject[]).map((path) => path.backend),
      );
      expect(new Set(backends.map((backend) => JSON.stringify(backend))), label).toEqual(
        new Set(backends.length === 0 ? [] : [JSON.stringify({ service: { name: fullname, port: { name: 'http' } } })]),
      );
      expect(valueAt(ofKind(objects, 'Ingress')[0], 'spec.defaultBackend'), label).toBeUndefined();
    }
    expect(ofKind(fullCase().objects, 'Ingress')).toHaveLength(1);
    expect(valueAt(fullCase().values, 'service.type')).toBe('LoadBalancer'); // and the admin Service stays ClusterIP
  });

  it('routes the sign-in endpoints through the Ingress in sign-in mode, and the Connections pages with connections, and only then', async () => {
    const pathsOf = (objects: readonly PlainObject[]) =>
      ofKind(objects, 'Ingress').flatMap((ingress) =>
        (valueAt(ingress, 'spec.rules') as PlainObject[]).flatMap((rule) => (valueAt(rule, 'http.paths') as PlainObject[]).map((path) => path.path)),
      );
    const signIn = {
      auth: {
        signIn: { provider: { issuer: 'https://login.example.com', clientId: 'switchboard', clientSecret: '${SIGN_IN_CLIENT_SECRET}' }, secret: '${SIGN_IN_SECRET}' },
      },
    };
    const withSignIn = await render(['--set', 'ingress.enabled=true', '--set-json', `config=${JSON.stringify({ ...(valueAt(defaults(), 'config') as PlainObject), ...signIn })}`]);
    expect(pathsOf(withSignIn)).toEqual(['/mcp', '/.well-known/oauth-protected-resource', '/oauth', '/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']);
    expect(pathsOf(await render(['--set', 'ingress.enabled=true']))).toEqual(['/mcp', '/.well-known/oauth-protected-resource']);
    // A server whose credentials are connections: the people's Connections pages and callbacks too.
    const connections = { ...signIn, mcpServers: { linear: { url: 'https://mcp.linear.app/mcp', credentials: { connection: {} } } } };
    const withConnections = await render(['--set', 'ingress.enabled=true', '--set-json', `config=${JSON.stringify({ ...(valueAt(defaults(), 'config') as PlainObject), ...connections })}`]);
    expect(pathsOf(withConnections)).toEqual(['/mcp', '/.well-known/oauth-protected-resource', '/oauth', '/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/connections']);
  });

  it('lets only networkPolicy.adminFrom reach the admin port through the NetworkPolicy', async () => {
    const full = fullCase();
    const policy = find(full.objects, 'NetworkPolicy', full.fullname);
    const rules = valueAt(policy, 'spec.ingress') as PlainObject[];
    expect(rules).toEqual([
      { ports: [{ port: 'http', protocol: 'TCP' }], from: valueAt(full.values, 'networkPolicy.ingressFrom') },
      { ports: [{ port: 'admin', protocol: 'TCP' }], from: valueAt(full.values, 'networkPolicy.adminFrom') },
    ]);
    // With adminFrom empty (the default) no rule names the admin port, and every rule names its
    // ports (a rule without ports would let its peers reach every port, the admin port too).
    const objects = await render(['--set', 'networkPolicy.enabled=true', '--set-json', 'networkPolicy.ingressFrom=[{"namespaceSelector":{}}]']);
    expect(valueAt(find(objects, 'NetworkPolicy', RELEASE), 'spec.ingress')).toEqual([{ ports: [{ port: 'http', protocol: 'TCP' }], from: [{ namespaceSelector: {} }] }]);
    expect(valueAt(defaults(), 'networkPolicy.adminFrom')).toEqual([]);
  });

  it('has no admin port, admin Service or admin NetworkPolicy rule, and binds nothing to 0.0.0.0, with admin.enabled false', async () => {
    const objects = await render([
      '--set',
      'admin.enabled=false',
      '--set',
      'networkPolicy.enabled=true',
      '--set-json',
      'networkPolicy.adminFrom=[{"namespaceSelector":{}}]',
    ]);
    expect(objects.map(describeObject)).not.toContain(`Service/${RELEASE}-admin`);
    expect(container(find(objects, 'Deployment', RELEASE)).ports).toEqual([{ name: 'http', containerPort: defaults().containerPort, protocol: 'TCP' }]);
    expect(valueAt(find(objects, 'NetworkPolicy', RELEASE), 'spec.ingress')).toEqual([{ ports: [{ port: 'http', protocol: 'TCP' }] }]);
    expect(gatewayConfig(objects, RELEASE).admin).toEqual({ enabled: false });
    expect(() => parseConfigText(gatewayConfigText(objects, RELEASE), 'yaml', POD_ENV)).not.toThrow();
  });

  it('refuses, at helm template, values that would render but not work', async () => {
    const refusals: [string[], string][] = [
      [['--set', 'admin.port=8080'], 'admin.port must differ from containerPort'],
      [['--set', 'replicaCount=2'], 'more than one replica (replicaCount > 1 or autoscaling.enabled) needs a shared Redis'],
      [
        ['--set', 'redis.url=redis://redis:6379,autoscaling.enabled=true,autoscaling.minReplicas=5,autoscaling.maxReplicas=3'],
        'autoscaling.minReplicas must not exceed autoscaling.maxReplicas',
      ],
      [['--set', 'terminationGracePeriodSeconds=30'], 'terminationGracePeriodSeconds (30) must exceed preStopSleepSeconds (5)'],
      [['--set', 'config.admin.onServerPort=true'], 'config.admin.onServerPort'],
      // values.schema.json checks `config` with the gateway's own schema.
      [['--set', 'config.server.prot=8080'], "at '/config/server': additional properties 'prot' not allowed"],
    ];
    const results = await Promise.all(refusals.map(([args]) => template(args)));
    results.forEach(({ code, stderr }, index) => {
      const [args, message] = refusals[index]!;
      expect({ args, code }).toEqual({ args, code: 1 });
      expect(stderr, args.join(' ')).toContain(message);
    });
    // With the admin listener off, its port may be anything.
    expect((await template(['--set', 'admin.enabled=false,admin.port=8080'])).code).toBe(0);
  });

  it('rolls the pods when the config it writes changes, and only then', async () => {
    const checksum = (objects: PlainObject[]): unknown =>
      (valueAt(find(objects, 'Deployment', RELEASE), 'spec.template.metadata.annotations') as PlainObject | undefined)?.['checksum/config'];
    const [logLevel, drain, adminPort] = await Promise.all([
      render(['--set', 'logLevel=debug']),
      render(['--set', 'config.server.shutdownTimeoutSeconds=20']),
      render(['--set', 'admin.port=9000']),
    ]);
    const byDefault = checksum(cases[0]!.objects);
    expect(byDefault).toMatch(/^[0-9a-f]{64}$/);
    expect(checksum(logLevel)).toBe(byDefault);
    expect(checksum(drain)).not.toBe(byDefault);
    expect(checksum(adminPort)).not.toBe(byDefault);
  });

  it('scrapes the main Service and carries the alert rules and dashboard of files/, through the Prometheus Operator and Grafana', () => {
    const { fullname, objects } = fullCase();
    const monitor = find(objects, 'ServiceMonitor', fullname);
    expect(valueAt(monitor, 'apiVersion')).toBe(OPERATOR_API);
    expect(isSubset(valueAt(monitor, 'spec.selector.matchLabels'), valueAt(find(objects, 'Service', fullname), 'metadata.labels'))).toBe(true);
    expect(valueAt(monitor, 'spec.namespaceSelector')).toEqual({ matchNames: [NAMESPACE] });
    expect(valueAt(monitor, 'spec.endpoints')).toEqual([expect.objectContaining({ port: 'http', path: '/metrics' })]);

    const rules = find(objects, 'PrometheusRule', fullname);
    expect(valueAt(rules, 'spec.groups')).toEqual(valueAt(readYaml(join(CHART_DIR, 'files', 'prometheus-rules.yaml')), 'groups'));

    const dashboard = configMapFile(find(objects, 'ConfigMap', `${fullname}-dashboard`), 'switchboard.json');
    expect(JSON.parse(dashboard)).toEqual(readJson(join(CHART_DIR, 'files', 'grafana-dashboard.json')));
  });

  it('prints NOTES that say how to reach the endpoint and the status page', async () => {
    const [byDefault, full] = await Promise.all([
      runHelm(helm, ['install', RELEASE, CHART_DIR, '--namespace', NAMESPACE, '--dry-run=client']),
      runHelm(helm, ['install', RELEASE, CHART_DIR, '--namespace', NAMESPACE, '--dry-run=client', '--values', FULL_VALUES]),
    ]);
    expect(byDefault.code, byDefault.stderr).toBe(0);
    expect(byDefault.stdout).toContain(`kubectl port-forward --namespace ${NAMESPACE} svc/${RELEASE} 8080:80`);
    expect(byDefault.stdout).toContain(`kubectl port-forward --namespace ${NAMESPACE} svc/${RELEASE}-admin 8081:8081`);
    expect(byDefault.stdout).toContain('Warning: config.auth is not set');
    expect(full.code, full.stderr).toBe(0);
    expect(full.stdout).toContain('https://mcp.example.com/mcp');
    expect(full.stdout).toContain(`svc/${fullCase().fullname}-admin 8081:${String(valueAt(fullCase().values, 'admin.port'))}`);
    expect(full.stdout).not.toContain('Warning: config.auth is not set');
  });

  it("makes, with default values, the objects of deploy/base (the chart's defaults written out, the admin listener on loopback there)", () => {
    const objects = withAdminOnLoopback(cases[0]!.objects);
    const base = readKustomization(join(DEPLOY_DIR, 'base')).resourceFiles.flatMap((file) => readYamlDocuments(file) as PlainObject[]);
    expect(base.map(describeObject).sort()).toEqual(objects.filter((object) => object.kind !== 'ConfigMap').map(describeObject).sort());
    for (const object of base) {
      expect(withoutHelmMarks(find(objects, String(object.kind), String(valueAt(object, 'metadata.name')))), describeObject(object)).toEqual(object);
    }
    // The base's ConfigMap comes from switchboard.yaml through kustomize's configMapGenerator.
    const config = gatewayConfig(objects, RELEASE);
    expect(readYaml(join(DEPLOY_DIR, 'base', 'switchboard.yaml'))).toEqual({ ...config, admin: { ...(config.admin as object), host: '127.0.0.1' } });
  });
});

/**
 * The chart's objects as deploy/base has them: the one difference is the admin listener, which the
 * base binds to the pod's loopback address (reached with kubectl port-forward), so it has no admin
 * Service and no admin port on its container (and `admin.host: 127.0.0.1` in its config); the chart
 * binds 0.0.0.0 behind its admin Service.
 */
function withAdminOnLoopback(objects: readonly PlainObject[]): PlainObject[] {
  return objects
    .filter((object) => !(object.kind === 'Service' && valueAt(object, 'metadata.name') === `${RELEASE}-admin`))
    .map((object) => {
      const copy = structuredClone(object);
      if (copy.kind === 'Deployment') {
        for (const container of valueAt(copy, 'spec.template.spec.containers') as PlainObject[]) {
          container.ports = (container.ports as PlainObject[]).filter((port) => port.name !== 'admin');
        }
      }
      return copy;
    });
}

/** An object without what only Helm adds: its chart and manager labels and the config checksum. */
function withoutHelmMarks(object: PlainObject): PlainObject {
  const copy = structuredClone(object);
  for (const path of ['metadata.labels', 'spec.template.metadata.labels']) {
    const labels = valueAt(copy, path);
    if (isPlainObject(labels)) {
      delete labels['helm.sh/chart'];
      delete labels['app.kubernetes.io/managed-by'];
    }
  }
  const template = valueAt(copy, 'spec.template.metadata');
  if (isPlainObject(template) && isPlainObject(template.annotations)) {
    delete template.annotations['checksum/config'];
    if (Object.keys(template.annotations).length === 0) delete template.annotations;
  }
  return copy;
}
