// Where traces go: the config's telemetry block over the standard OTEL_* variables.
import { describe, expect, it } from 'vitest';
import { resolveTracing } from '../../src/observe/tracing/settings.js';

describe('tracing settings', () => {
  it('are off when neither the config nor the environment names an endpoint', () => {
    expect(resolveTracing({}, {}).settings).toBeUndefined();
  });

  it('take the config endpoint as the traces URL, with protobuf, every trace recorded and the default service name', () => {
    expect(resolveTracing({ endpoint: 'http://collector:4318/v1/traces' }, {}).settings).toEqual({
      endpoint: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      serviceName: 'switchboard',
      sampler: { parentBased: true, ratio: 1 },
    });
  });

  it('append /v1/traces to OTEL_EXPORTER_OTLP_ENDPOINT and take OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is', () => {
    expect(resolveTracing({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).settings?.endpoint).toBe('http://collector:4318/v1/traces');
    expect(resolveTracing({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/base/' }).settings?.endpoint).toBe('http://collector:4318/base/v1/traces');
    const both = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:9999/custom' };
    expect(resolveTracing({}, both).settings?.endpoint).toBe('http://traces:9999/custom');
  });

  it('let every config key win over its variable', () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://from-env:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-tenant=env,x-env-only=yes',
      OTEL_SERVICE_NAME: 'from-env',
      OTEL_TRACES_SAMPLER: 'always_off',
    };
    const config = { endpoint: 'http://from-config:4318/v1/traces', protocol: 'http/protobuf' as const, headers: { 'x-tenant': 'config' }, serviceName: 'gw', sampleRatio: 0.25 };
    expect(resolveTracing(config, env).settings).toEqual({
      endpoint: 'http://from-config:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: { 'x-tenant': 'config', 'x-env-only': 'yes' },
      serviceName: 'gw',
      sampler: { parentBased: true, ratio: 0.25 },
    });
  });

  it('read the protocol, headers (decoded, the traces ones winning), service name and sampler from the environment', () => {
    const settings = resolveTracing(
      {},
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Basic%20abc, x-a = 1,broken,=x,bad=%E0%A4%A',
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-a=2',
        OTEL_SERVICE_NAME: 'edge-gateway',
        OTEL_TRACES_SAMPLER: 'traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.1',
      },
    ).settings;
    expect(settings?.headers).toEqual({ authorization: 'Basic abc', 'x-a': '2' });
    expect(settings).toMatchObject({
      protocol: 'http/json',
      serviceName: 'edge-gateway',
      sampler: { parentBased: false, ratio: 0.1 },
    });
  });

  it('warn of each header entry they skip, by variable and position, never quoting the entry', () => {
    const { settings, warnings } = resolveTracing(
      {},
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector',
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Basic%20abc,Bearer s3cr3t-token,,=n0name,bad=%E0%A4%A,',
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-scope-orgid=platform,x-empty=',
      },
    );
    expect(settings?.headers).toEqual({ authorization: 'Basic abc', 'x-scope-orgid': 'platform' });
    expect(warnings).toEqual([
      'OTEL_EXPORTER_OTLP_HEADERS: entry 2 is not name=value (no "="): ignored',
      'OTEL_EXPORTER_OTLP_HEADERS: entry 4 has no name before "=": ignored',
      'OTEL_EXPORTER_OTLP_HEADERS: entry 5 is not valid percent-encoding: ignored',
      'OTEL_EXPORTER_OTLP_TRACES_HEADERS: entry 2 has no value after "=": ignored',
    ]);
    expect(warnings.join('\n')).not.toMatch(/s3cr3t|n0name|Basic|%E0/);
  });

  it('are off with OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none, unless the config enables them', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' };
    expect(resolveTracing({}, env).settings).toBeUndefined();
    expect(resolveTracing({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }).settings).toBeUndefined();
    expect(resolveTracing({ enabled: true }, env).settings?.endpoint).toBe('http://collector:4318/v1/traces');
  });

  it('are off with enabled: false whatever else is set, and use the OTLP default endpoint with enabled: true alone', () => {
    expect(resolveTracing({ enabled: false, endpoint: 'http://collector:4318/v1/traces' }, {}).settings).toBeUndefined();
    expect(resolveTracing({ enabled: true }, {}).settings?.endpoint).toBe('http://localhost:4318/v1/traces');
  });

  it('warn about and ignore values they cannot use', () => {
    const { settings, warnings } = resolveTracing(
      {},
      {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'collector:4317',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '2',
      },
    );
    expect(settings).toMatchObject({ endpoint: 'http://collector:4318/v1/traces', protocol: 'http/protobuf', sampler: { parentBased: true, ratio: 1 } });
    expect(warnings).toHaveLength(3);
    expect(warnings.join('\n')).toMatch(/OTEL_EXPORTER_OTLP_TRACES_ENDPOINT.*ignored[\s\S]*grpc[\s\S]*OTEL_TRACES_SAMPLER_ARG/);
  });
});
