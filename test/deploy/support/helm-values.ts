// Helm's way of combining a chart's values.yaml with a user's values file, for the checks that need
// the values a release would get: maps merge key by key, anything else replaces, and null removes a key.
import { isPlainObject, type PlainObject } from './repo.js';

export function mergeValues(base: PlainObject, override: PlainObject): PlainObject {
  const merged: PlainObject = { ...base };
  for (const [key, value] of Object.entries(override)) {
    if (value === null) delete merged[key];
    else merged[key] = isPlainObject(value) && isPlainObject(merged[key]) ? mergeValues(merged[key], value) : value;
  }
  return merged;
}

/** The value at a dotted path (`image.tag`, `spec.ports.0.port`), or undefined. */
export function valueAt(values: unknown, path: string): unknown {
  let current: unknown = values;
  for (const key of path.split('.')) {
    if (Array.isArray(current) && /^\d+$/.test(key)) current = current[Number(key)];
    else if (isPlainObject(current) && key in current) current = current[key];
    else return undefined;
  }
  return current;
}

export function hasPath(values: unknown, path: string): boolean {
  const keys = path.split('.');
  const last = keys.pop()!;
  const parent = keys.length === 0 ? values : valueAt(values, keys.join('.'));
  return isPlainObject(parent) && last in parent;
}
