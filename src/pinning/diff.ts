// A readable account of how live tools differ from their pins, for `switchboard lock --check` and
// the gateway's log. It names the server and the tool, then each field that changed by its key path
// (`inputSchema.properties.query.type`), so a long schema shows only what moved; text (descriptions,
// wherever they are) as a line diff with its old and new lines; characters a reader cannot see
// spelled out (visible.ts).
import { formatKeyPath, isPlainObject, type KeyPath } from '../config/key-path.js';
import { canonicalJson, PINNED_FIELDS, type ToolDefinition } from './definition.js';
import type { Pin } from './lock-file.js';
import type { ServerComparison } from './verdicts.js';
import { showHidden } from './visible.js';

/** One difference at a key path: `before` absent means added, `after` absent means removed. */
export interface FieldChange {
  readonly path: KeyPath;
  readonly before?: unknown;
  readonly after?: unknown;
}

/** Where a definition differs, leaf by leaf: nested objects are compared key by key, arrays of objects item by item. */
export function definitionChanges(before: ToolDefinition, after: ToolDefinition): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const field of PINNED_FIELDS) compareValues([field], before[field], after[field], changes);
  return changes;
}

function compareValues(path: KeyPath, before: unknown, after: unknown, changes: FieldChange[]): void {
  if (before === undefined && after === undefined) return;
  if (before === undefined) {
    changes.push({ path, after });
    return;
  }
  if (after === undefined) {
    changes.push({ path, before });
    return;
  }
  if (canonicalJson(before) === canonicalJson(after)) return;
  if (isPlainObject(before) && isPlainObject(after)) {
    for (const key of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
      compareValues([...path, key], before[key], after[key], changes);
    }
    return;
  }
  // A list of names (`required`, `enum`) reads best as what left and what came; a list of
  // schemas (`anyOf`) item by item.
  if (Array.isArray(before) && Array.isArray(after) && !(before.every(isScalar) && after.every(isScalar))) {
    for (let index = 0; index < Math.max(before.length, after.length); index += 1) compareValues([...path, index], before[index], after[index], changes);
    return;
  }
  changes.push({ path, before, after });
}

function isScalar(value: unknown): boolean {
  return value === null || typeof value !== 'object';
}

/** Lines of text for one field change, the first naming the path; `indent` goes before each. */
export function renderChange(change: FieldChange, indent = ''): string[] {
  const path = formatKeyPath(change.path);
  const { before, after } = change;
  if (before === undefined) return labelled(`${path}: added`, after, indent);
  if (after === undefined) return labelled(`${path}: removed, was`, before, indent);
  if (typeof before === 'string' && typeof after === 'string' && (isLongText(before) || isLongText(after))) {
    return [`${indent}${path}:`, ...textDiff(before, after).map((line) => `${indent}  ${line}`)];
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const gone = before.filter((item) => !after.some((other) => canonicalJson(other) === canonicalJson(item)));
    const came = after.filter((item) => !before.some((other) => canonicalJson(other) === canonicalJson(item)));
    const parts = [...(gone.length > 0 ? [`without ${gone.map(compact).join(', ')}`] : []), ...(came.length > 0 ? [`with ${came.map(compact).join(', ')}`] : [])];
    // Same items, another order.
    if (parts.length === 0) parts.push(`reordered to ${compact(after)}`);
    return [`${indent}${path}: ${parts.join('; ')} (was ${compact(before)})`];
  }
  return [`${indent}${path}: ${compact(before)} -> ${compact(after)}`];
}

/** `label value` on one line when short, else the value's lines below the label. */
function labelled(label: string, value: unknown, indent: string): string[] {
  const heading = `${indent}${label}${label.endsWith(':') ? '' : ':'}`;
  if (typeof value === 'string' && isLongText(value)) return [heading, ...value.split('\n').map((line) => `${indent}  | ${showHidden(line)}`)];
  const oneLine = compact(value);
  if (oneLine.length <= 100) return [`${indent}${label} ${oneLine}`];
  return [heading, ...showHidden(JSON.stringify(JSON.parse(canonicalJson(value)), null, 2)).split('\n').map((line) => `${indent}  ${line}`)];
}

/** One line of JSON, keys sorted, so the same value always reads the same. */
function compact(value: unknown): string {
  return showHidden(canonicalJson(value));
}

function isLongText(text: string): boolean {
  return text.includes('\n') || text.length > 60;
}

/** Lines of unchanged text kept around each change; longer runs are cut to a count. */
const CONTEXT_LINES = 2;
/** Beyond this many line pairs the diff is not worth its time: all old lines, then all new. */
const MAX_DIFF_CELLS = 4_000_000;

/** A line diff: `- old`, `+ new`, `  same` lines. */
export function textDiff(before: string, after: string): string[] {
  const a = before.split('\n');
  const b = after.split('\n');
  const ops = a.length * b.length > MAX_DIFF_CELLS ? [...a.map((line) => ['-', line] as const), ...b.map((line) => ['+', line] as const)] : lineOps(a, b);
  // Unchanged lines near a change are kept; other runs of them are cut to a count.
  const changedAt = ops.flatMap(([op], index) => (op === ' ' ? [] : [index]));
  const kept = (index: number) => changedAt.some((at) => Math.abs(at - index) <= CONTEXT_LINES);
  const lines: string[] = [];
  let skipped = 0;
  ops.forEach(([op, line], index) => {
    if (op === ' ' && !kept(index)) {
      skipped += 1;
      return;
    }
    if (skipped > 0) lines.push(`  ... ${skipped} unchanged line${skipped === 1 ? '' : 's'}`);
    skipped = 0;
    lines.push(`${op} ${showHidden(line)}`);
  });
  if (skipped > 0) lines.push(`  ... ${skipped} unchanged line${skipped === 1 ? '' : 's'}`);
  return lines;
}

/** The longest common subsequence of lines, as edit operations in order. */
function lineOps(a: readonly string[], b: readonly string[]): (readonly ['-' | '+' | ' ', string])[] {
  // lengths[i][j]: LCS of a[i..] and b[j..].
  const lengths = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      lengths[i]![j] = a[i] === b[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
    }
  }
  const ops: (readonly ['-' | '+' | ' ', string])[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push([' ', a[i]!]);
      i += 1;
      j += 1;
    } else if (j < b.length && (i === a.length || lengths[i]![j + 1]! >= lengths[i + 1]![j]!)) {
      // Removals before additions at the same place, as diff(1) shows them.
      if (i < a.length && lengths[i + 1]![j]! === lengths[i]![j + 1]!) {
        ops.push(['-', a[i]!]);
        i += 1;
      } else {
        ops.push(['+', b[j]!]);
        j += 1;
      }
    } else {
      ops.push(['-', a[i]!]);
      i += 1;
    }
  }
  return ops;
}

/** A tool's name as shown: bare when plain, quoted otherwise. */
export function shownName(name: string): string {
  return /^[A-Za-z0-9_.-]+$/.test(name) ? name : showHidden(JSON.stringify(name));
}

/** The lines for one changed tool: a heading, then each field change. */
export function renderChangedTool(name: string, pin: Pin, live: Pin, indent = ''): string[] {
  return [
    `${indent}~ ${shownName(name)}: changed (pinned ${shortDigest(pin.digest)}, now ${shortDigest(live.digest)})`,
    ...definitionChanges(pin.definition, live.definition).flatMap((change) => renderChange(change, `${indent}    `)),
  ];
}

/** The lines for a tool that has no pin: what it says it does and what it takes. */
export function renderAddedTool(live: Pin, indent = ''): string[] {
  const { definition } = live;
  const lines = [`${indent}+ ${shownName(definition.name)}: not in the lock file (${shortDigest(live.digest)})`];
  const inner = `${indent}    `;
  if (definition.title !== undefined) lines.push(...labelled('title:', definition.title, inner));
  if (definition.description !== undefined) lines.push(...labelled('description:', definition.description, inner));
  for (const field of ['inputSchema', 'outputSchema'] as const) {
    if (definition[field] !== undefined) lines.push(`${inner}${field}: ${schemaSummary(definition[field])}`);
  }
  if (definition.annotations !== undefined) lines.push(...labelled('annotations:', definition.annotations, inner));
  return lines;
}

export function renderRemovedTool(pin: Pin, indent = ''): string[] {
  return [`${indent}- ${shownName(pin.definition.name)}: pinned, no longer listed by the upstream`];
}

/** A schema in a line: its properties and which are required; the lock file has the rest. */
function schemaSummary(schema: unknown): string {
  if (!isPlainObject(schema) || !isPlainObject(schema.properties)) return compact(schema).slice(0, 200);
  const properties = Object.keys(schema.properties).map(shownName);
  const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string').map(shownName) : [];
  return `properties ${properties.length > 0 ? properties.join(', ') : '(none)'}${required.length > 0 ? `; required ${required.join(', ')}` : ''}`;
}

function shortDigest(digest: string): string {
  return digest.slice(0, 'sha256:'.length + 12);
}

/** Everything that differs for one server, or nothing when it matches its pins. */
export function renderServerComparison(comparison: ServerComparison): string[] {
  const { server, inLock, inConfig, changed, added, removed } = comparison;
  if (inLock && changed.length + added.length + removed.length === 0) return [];
  // Not the upstream's doing: the pins go with the next `switchboard lock`, and there is no tool to review.
  if (!inConfig) return [`server ${showHidden(JSON.stringify(server))}: removed or disabled in the config (${tools(removed.length)} pinned)`];
  const counts = [
    changed.length > 0 ? `${changed.length} changed` : '',
    added.length > 0 ? `${added.length} not in the lock file` : '',
    removed.length > 0 ? `${removed.length} no longer listed` : '',
  ].filter((part) => part !== '');
  const heading = inLock
    ? `server ${showHidden(JSON.stringify(server))}: ${counts.join(', ')}`
    : `server ${showHidden(JSON.stringify(server))}: not in the lock file${added.length > 0 ? ` (${tools(added.length)})` : ''}`;
  return [
    heading,
    ...changed.flatMap(({ name, pin, live }) => renderChangedTool(name, pin, live, '  ')),
    ...added.flatMap((live) => renderAddedTool(live, '  ')),
    ...removed.flatMap((pin) => renderRemovedTool(pin, '  ')),
  ];
}

function tools(count: number): string {
  return `${count} tool${count === 1 ? '' : 's'}`;
}
