// Where a process spent its CPU: the top self-time functions, and self time by package, from a
// V8 .cpuprofile (what `node --cpu-prof` writes). Self time rather than total time, because the
// question is which code burns the cycles, not which caller sits above it; by package, because a
// cost spread over many small functions of one library (a router, a schema validator, a logger)
// only shows up as a sum.
//
//   node --import tsx bench/cpu-profile.ts FILE.cpuprofile [TOP]
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

// V8's pseudo-frames: not code of anyone's, reported apart from the functions.
const IDLE = '(idle)';

export function summariseProfile(file: string, top = 25): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const nodeById = new Map(profile.nodes.map((node) => [node.id, node]));
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let busyUs = 0;
  let idleUs = 0;

  // Sample i lasts until sample i+1 (as DevTools reads it), so its duration is timeDeltas[i+1].
  for (let i = 0; i < profile.samples.length; i += 1) {
    const node = nodeById.get(profile.samples[i]!);
    const durationUs = Math.max(0, profile.timeDeltas[i + 1] ?? 0);
    if (node === undefined) continue;
    const frame = node.callFrame;
    if (frame.functionName === IDLE) {
      idleUs += durationUs;
      continue;
    }
    busyUs += durationUs;
    add(byFunction, functionKey(frame), durationUs);
    add(byPackage, packageOf(frame), durationUs);
  }

  const lines = [
    `profile: ${file}`,
    `busy ${(busyUs / 1000).toFixed(0)} ms, idle ${(idleUs / 1000).toFixed(0)} ms; shares below are of busy time`,
    '',
    'self time by package:',
    ...ranked(byPackage, busyUs, 15),
    '',
    `top ${top} functions by self time:`,
    ...ranked(byFunction, busyUs, top),
  ];
  return lines.join('\n');
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

/** node_modules/<package> (scoped too), node internals, the gateway's own code, or a V8 pseudo-frame. */
function packageOf(frame: CallFrame): string {
  const { url } = frame;
  if (url === '') return frame.functionName; // (garbage collector), (program), ...
  if (url.startsWith('node:')) return 'node (built-ins)';
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
  const [file, top] = process.argv.slice(2);
  if (file === undefined) {
    process.stderr.write('usage: node --import tsx bench/cpu-profile.ts FILE.cpuprofile [TOP]\n');
    process.exit(2);
  }
  process.stdout.write(`${summariseProfile(file, top === undefined ? undefined : Number(top))}\n`);
}
