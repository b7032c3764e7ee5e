// Starts what the chosen targets need, each part once (the two eras of a gateway share it), and
// hands back the targets with their endpoints and the process ids whose CPU time they are charged.
import { createServer, type AddressInfo } from 'node:net';
import {
  EVERYTHING_PATTERN,
  EVERYTHING_STDIO,
  MODERN_PATTERN,
  MODERN_STDIO,
  startEverythingOverHttp,
  startEverythingOverStdio,
  startFloor,
  startGateway,
  startMcpProxy,
  startMinProxy,
  startOtlpSink,
  startRedis,
  type RunningFront,
} from './processes.js';
import { MIN_PROXY_BUSY_US, TARGET_SPECS, type StackPart, type Target, type TargetName } from './targets.js';

export interface GatewaySettings {
  readonly logLevel: string;
  readonly cli?: string;
  readonly nodeArgs?: readonly string[];
}

/** Loopback only; nothing secret rides on it. */
export const BENCH_STATE_SECRET = 'switchboard-bench-not-a-secret';
const GATEWAY_SERVER = { host: '127.0.0.1', shutdownTimeoutSeconds: 5 };

export async function startStack(names: readonly TargetName[], gateway: GatewaySettings, progress: (message: string) => void): Promise<Target[]> {
  const parts = new Set(names.map((name) => TARGET_SPECS[name].part));
  const needs = (...wanted: StackPart[]): boolean => wanted.some((part) => parts.has(part));
  const built = new Map<StackPart, Pick<Target, 'endpoint' | 'frontPid' | 'upstreamPid' | 'control'>>();
  const gatewayWith = (label: string, config: object): Promise<RunningFront> => startGateway({ label, config: { server: GATEWAY_SERVER, ...config }, ...gateway });
  const asFront = (front: RunningFront, upstream = EVERYTHING_PATTERN): Pick<Target, 'endpoint' | 'frontPid' | 'upstreamPid' | 'control'> => ({
    endpoint: { kind: 'http', url: front.url },
    frontPid: front.pid,
    ...optionalPid(front.upstreamPids(upstream)[0]),
    control: front.control,
  });

  if (needs('floor')) {
    const floor = await startFloor();
    built.set('floor', { endpoint: { kind: 'http', url: floor.url }, upstreamPid: floor.pid });
  }
  if (needs('floor-raw')) {
    const floor = await startFloor('raw');
    built.set('floor-raw', { endpoint: { kind: 'http', url: floor.url }, upstreamPid: floor.pid });
  }
  if (needs('stdio-direct')) {
    const peer = await startEverythingOverStdio();
    built.set('stdio-direct', { endpoint: { kind: 'stdio', peer }, upstreamPid: peer.pid });
  }
  if (needs('gw-stdio')) built.set('gw-stdio', asFront(await gatewayWith('stdio-memory', { mcpServers: { everything: EVERYTHING_STDIO } })));
  if (needs('gw-stdio-traced')) {
    // Every call traced (the default sampler records every new trace), exported in the SDK's batches.
    const sink = await startOtlpSink();
    built.set('gw-stdio-traced', asFront(await gatewayWith('stdio-memory-traced', { telemetry: { endpoint: sink.url }, mcpServers: { everything: EVERYTHING_STDIO } })));
  }
  if (needs('gw-isolation')) {
    // A per-user upstream that never answers: no call of the load needs it, so none may wait on it.
    const hung = await startSilentPort();
    const mcpServers = { everything: EVERYTHING_STDIO, hung: { url: hung.url, isolation: 'session', timeoutMs: 2_000 } };
    built.set('gw-isolation', asFront(await gatewayWith('stdio-memory-isolation', { mcpServers })));
  }
  if (needs('gw-redis')) {
    const redis = await startRedis();
    const sessions = { store: 'redis', redisUrl: redis.url, keyPrefix: 'bench-load:' };
    // A fixed secret, as every replica of a Redis deployment has (else the gateway warns that it made one up).
    const mrtr = { stateSecret: BENCH_STATE_SECRET };
    built.set('gw-redis', asFront(await gatewayWith('stdio-redis', { sessions, mrtr, mcpServers: { everything: EVERYTHING_STDIO } })));
  }
  if (needs('gw-modern')) built.set('gw-modern', asFront(await gatewayWith('stdio-modern', { mcpServers: { modern: MODERN_STDIO } }), MODERN_PATTERN));
  if (needs('mcp-proxy')) built.set('mcp-proxy', asFront(await startMcpProxy()));
  if (needs('min-proxy')) built.set('min-proxy', asFront(await startMinProxy()));
  if (needs('min-proxy-busy')) built.set('min-proxy-busy', asFront(await startMinProxy(MIN_PROXY_BUSY_US)));
  if (needs('min-proxy-raw')) built.set('min-proxy-raw', asFront(await startMinProxy(0, 'raw')));
  if (needs('http-upstream', 'gw-http')) {
    const upstream = await startEverythingOverHttp();
    const upstreamPid = upstream.pid;
    if (needs('http-upstream')) built.set('http-upstream', { endpoint: { kind: 'http', url: upstream.url }, ...optionalPid(upstreamPid) });
    if (needs('gw-http')) {
      const front = await gatewayWith('http-memory', { mcpServers: { everything: { url: upstream.url, transport: 'streamable-http' } } });
      built.set('gw-http', { ...asFront(front), ...optionalPid(upstreamPid) });
    }
  }
  const targets = names.map((name) => ({ ...TARGET_SPECS[name], ...built.get(TARGET_SPECS[name].part)! }));
  progress(`running: ${targets.map((target) => `${target.name} (${target.endpoint.kind === 'http' ? target.endpoint.url : `stdio pid ${target.upstreamPid}`})`).join(', ')}`);
  return targets;
}

/** Accepts connections and never answers; held by this process for the run (its CPU is no target's). */
async function startSilentPort(): Promise<{ url: string }> {
  const server = createServer(() => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` };
}

function optionalPid(pid: number | undefined): { upstreamPid?: number } {
  return pid === undefined ? {} : { upstreamPid: pid };
}
