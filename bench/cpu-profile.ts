// Where a process spent its CPU: self time by package, by owner, and the top self-time functions,
// from V8 .cpuprofile files (what `node --cpu-prof` or the inspector's Profiler writes). Self time
// rather than total time, because the question is which code burns the cycles, not which caller
// sits above it; by package, because a cost spread over many small functions of one library (a
// router, a schema validator, a logger) only shows up as a sum. "By owner" charges node's built-ins
// and native code (a socket write, a sync file write) to the nearest package up the stack, since
// a syscall is spent on someone's behalf: the logger's, the HTTP server's, the upstream client's.
// Several profiles (one per measured round) add up to one summary.
//
//   node --import tsx bench/cpu-profile.ts FILE.cpuprofile... [--top N]
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

// V8's pseudo-frames: not code of anyone's, reported apart from the functions.
const IDLE = '(idle)';
const BUILT_INS = 'node (built-ins)';
const NATIVE = 'native code';

export function summariseProfiles(files: readonly string[], top = 25): string {
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  const byOwner = new Map<string, number>();
  const ownFunctions = new Map<string, number>();
  let busyUs = 0;
  let idleUs = 0;
  let samples = 0;
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    const ownerOf = owners(profile);
    const nodeById = new Map(profile.nodes.map((node) => [node.id, node]));
    // Sample i lasts until sample i+1 (as DevTools reads it), so its duration is timeDeltas[i+1].
    for (let i = 0; i < profile.samples.length; i += 1) {
      const node = nodeById.get(profile.samples[i]!);
      const durationUs = Math.max(0, profile.timeDeltas[i + 1] ?? 0);
      if (node === undefined) continue;
      samples += 1;
      const frame = node.callFrame;
      if (frame.functionName === IDLE) {
        idleUs += durationUs;
        continue;
      }
      busyUs += durationUs;
      const pkg = packageOf(frame);
      const owner = ownerOf(node.id);
      add(byFunction, pkg === NATIVE ? `${frame.functionName || '(unnamed)'}  (native, for ${owner})` : functionKey(frame), durationUs);
      add(byPackage, pkg, durationUs);
      add(byOwner, owner, durationUs);
      if (pkg === 'switchboard') add(ownFunctions, functionKey(frame), durationUs);
    }
  }

  const lines = [
    `profile: ${files.length} file(s), ${files[0] ?? ''}${files.length > 1 ? ' ...' : ''}`,
    // The count says how fine the shares are: an item of one sample in a thousand is noise.
    `busy ${(busyUs / 1000).toFixed(0)} ms, idle ${(idleUs / 1000).toFixed(0)} ms, ${samples} samples; shares below are of busy time`,
    '',
    'self time by package:',
    ...ranked(byPackage, busyUs, 15),
    '',
    "self time by owner (built-ins and native code charged to the nearest package that called them):",
    ...ranked(byOwner, busyUs, 15),
    '',
    `top ${top} functions by self time:`,
    ...ranked(byFunction, busyUs, top),
    '',
    "the gateway's own code (dist/), top 15:",
    ...ranked(ownFunctions, busyUs, 15),
  ];
  return lines.join('\n');
}

/** For each node, the package it works for: its own, or for built-ins and native code the nearest one above it. */
function owners(profile: CpuProfile): (id: number) => string {
  const parentOf = new Map<number, ProfileNode>();
  const nodeById = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node);
  const memo = new Map<number, string>();
  const ownerOf = (id: number): string => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const node = nodeById.get(id)!;
    const pkg = packageOf(node.callFrame);
    const parent = parentOf.get(id);
    // A pseudo-frame ((garbage collector), (program)) is its own owner; so is a built-in at the root.
    const lent = pkg === BUILT_INS || pkg === NATIVE;
    const owner = lent && parent !== undefined && parent.callFrame.functionName !== '(root)' ? ownerOf(parent.id) : pkg;
    memo.set(id, owner);
    return owner;
  };
  return ownerOf;
}

function add(totals: Map<string, number>, key: string, value: number): void {
  totals.set(key, (totals.get(key) ?? 0) + value);
}

function ranked(totals: Map<string, number>, busyUs: number, limit: number): string[] {
  return [...totals.entries()]
    .sort(([, a], [, b]) => b - a)
    .slice(0, limit)
    .map(([key, us]) => `${((100 * us) / busyUs).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${key}`);
}

function functionKey(frame: CallFrame): string {
  const name = frame.functionName === '' ? '(anonymous)' : frame.functionName;
  if (frame.url === '') return name;
  return `${name}  ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
}

/** node_modules/<package> (scoped too), node internals, native code, the gateway's own code, or a V8 pseudo-frame. */
function packageOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (url === '') return functionName.startsWith('(') ? functionName : NATIVE; // (garbage collector), (program); writev, ...
  if (url.startsWith('node:')) return BUILT_INS;
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match !== null) return match[1]!;
  if (url.includes('/dist/') || url.includes('/src/')) return 'switchboard';
  return shortUrl(url);
}

function shortUrl(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  const inModules = path.lastIndexOf('node_modules/');
  if (inModules >= 0) return path.slice(inModules + 'node_modules/'.length);
  const cwd = `${process.cwd()}/`;
  return path.startsWith(cwd) ? path.slice(cwd.length) : path;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string' } } });
  if (positionals.length === 0) {
    process.stderr.write('usage: node --import tsx bench/cpu-profile.ts FILE.cpuprofile... [--top N]\n');
    process.exit(2);
  }
  process.stdout.write(`${summariseProfiles(positionals, values.top === undefined ? undefined : Number(values.top))}\n`);
}
