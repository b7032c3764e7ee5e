// What an OTLP/HTTP exporter sends, decoded into plain spans: the JSON encoding (http/json) and
// the protobuf one (http/protobuf, the default). The protobuf reader is a few lines of the wire
// format (varints, fixed widths, length-delimited fields) for the fields of
// opentelemetry/proto/collector/trace/v1 that tests read: the OpenTelemetry packages here encode
// protobuf with a writer of their own and ship no reader for requests, and protobufjs is only a
// dependency of a dependency.
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** "" for a root span. */
  readonly parentSpanId: string;
  readonly traceState: string;
  readonly name: string;
  /** 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly startTimeUnixNano: bigint;
  readonly endTimeUnixNano: bigint;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
  /** 0 unset, 1 ok, 2 error. */
  readonly status: { readonly code: number; readonly message: string };
  /** The resource's attributes (service.name, ...). */
  readonly resource: Readonly<Record<string, AttributeValue>>;
}

export type AttributeValue = string | number | boolean | readonly AttributeValue[];

export const SPAN_KIND = { server: 2, client: 3 } as const;

// --- protobuf ---------------------------------------------------------------------------------

interface Field {
  readonly number: number;
  /** A varint or fixed64 as bigint, fixed32 as number, length-delimited as bytes. */
  readonly value: bigint | number | Uint8Array;
}

function* fields(bytes: Uint8Array): Generator<Field> {
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = bytes[at++];
      if (byte === undefined) throw new Error('truncated varint');
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
    }
  };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  while (at < bytes.length) {
    const tag = Number(varint());
    const number = tag >>> 3;
    switch (tag & 7) {
      case 0:
        yield { number, value: varint() };
        break;
      case 1:
        yield { number, value: view.getBigUint64(at, true) };
        at += 8;
        break;
      case 2: {
        const length = Number(varint());
        yield { number, value: bytes.subarray(at, at + length) };
        at += length;
        break;
      }
      case 5:
        yield { number, value: view.getUint32(at, true) };
        at += 4;
        break;
      default:
        throw new Error(`unsupported wire type ${tag & 7}`);
    }
  }
}

const text = (value: Field['value']): string => new TextDecoder().decode(value as Uint8Array);
const hex = (value: Field['value']): string => Buffer.from(value as Uint8Array).toString('hex');

function anyValue(bytes: Uint8Array): AttributeValue {
  for (const { number, value } of fields(bytes)) {
    switch (number) {
      case 1:
        return text(value);
      case 2:
        return value === 1n;
      case 3:
        return Number(BigInt.asIntN(64, value as bigint));
      case 4:
        return new DataView(new BigUint64Array([value as bigint]).buffer).getFloat64(0, true);
      case 5:
        return [...fields(value as Uint8Array)].filter((item) => item.number === 1).map((item) => anyValue(item.value as Uint8Array));
      default:
        return `<field ${number}>`;
    }
  }
  return '';
}

function keyValues(list: readonly Uint8Array[]): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const bytes of list) {
    let key = '';
    let value: AttributeValue = '';
    for (const field of fields(bytes)) {
      if (field.number === 1) key = text(field.value);
      if (field.number === 2) value = anyValue(field.value as Uint8Array);
    }
    out[key] = value;
  }
  return out;
}

function repeated(bytes: Uint8Array, number: number): Uint8Array[] {
  return [...fields(bytes)].filter((field) => field.number === number).map((field) => field.value as Uint8Array);
}

function protobufSpan(bytes: Uint8Array, resource: Record<string, AttributeValue>): ReceivedSpan {
  const span = { traceId: '', spanId: '', parentSpanId: '', traceState: '', name: '', kind: 0, startTimeUnixNano: 0n, endTimeUnixNano: 0n };
  const attributes: Uint8Array[] = [];
  const links: { traceId: string; spanId: string }[] = [];
  const status = { code: 0, message: '' };
  for (const { number, value } of fields(bytes)) {
    if (number === 1) span.traceId = hex(value);
    else if (number === 2) span.spanId = hex(value);
    else if (number === 3) span.traceState = text(value);
    else if (number === 4) span.parentSpanId = hex(value);
    else if (number === 5) span.name = text(value);
    else if (number === 6) span.kind = Number(value);
    else if (number === 7) span.startTimeUnixNano = value as bigint;
    else if (number === 8) span.endTimeUnixNano = value as bigint;
    else if (number === 9) attributes.push(value as Uint8Array);
    else if (number === 13) {
      const link = { traceId: '', spanId: '' };
      for (const part of fields(value as Uint8Array)) {
        if (part.number === 1) link.traceId = hex(part.value);
        if (part.number === 2) link.spanId = hex(part.value);
      }
      links.push(link);
    } else if (number === 15) {
      for (const part of fields(value as Uint8Array)) {
        if (part.number === 2) status.message = text(part.value);
        if (part.number === 3) status.code = Number(part.value);
      }
    }
  }
  return { ...span, attributes: keyValues(attributes), links, status, resource };
}

/** An ExportTraceServiceRequest in protobuf. */
export function decodeProtobufTraces(bytes: Uint8Array): ReceivedSpan[] {
  return repeated(bytes, 1).flatMap((resourceSpans) => {
    const resource = keyValues(repeated(resourceSpans, 1).flatMap((bytes) => repeated(bytes, 1)));
    return repeated(resourceSpans, 2).flatMap((scopeSpans) => repeated(scopeSpans, 2).map((span) => protobufSpan(span, resource)));
  });
}

// --- JSON -------------------------------------------------------------------------------------

interface JsonKeyValue {
  key: string;
  value: JsonAnyValue;
}
interface JsonAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: JsonAnyValue[] };
}
interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  traceState?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: JsonKeyValue[];
  links?: { traceId: string; spanId: string }[];
  status?: { code?: number; message?: string };
}
interface JsonRequest {
  resourceSpans?: { resource?: { attributes?: JsonKeyValue[] }; scopeSpans?: { spans?: JsonSpan[] }[] }[];
}

function jsonValue(value: JsonAnyValue): AttributeValue {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  return (value.arrayValue?.values ?? []).map(jsonValue);
}

function jsonAttributes(list: readonly JsonKeyValue[] = []): Record<string, AttributeValue> {
  return Object.fromEntries(list.map(({ key, value }) => [key, jsonValue(value)]));
}

/** An ExportTraceServiceRequest in OTLP's JSON encoding (ids in hex, as the JSON mapping has them). */
export function decodeJsonTraces(body: string): ReceivedSpan[] {
  const request = JSON.parse(body) as JsonRequest;
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = jsonAttributes(resourceSpans.resource?.attributes);
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        traceState: span.traceState ?? '',
        name: span.name,
        kind: span.kind,
        startTimeUnixNano: BigInt(span.startTimeUnixNano),
        endTimeUnixNano: BigInt(span.endTimeUnixNano),
        attributes: jsonAttributes(span.attributes),
        links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId })),
        status: { code: span.status?.code ?? 0, message: span.status?.message ?? '' },
        resource,
      })),
    );
  });
}
