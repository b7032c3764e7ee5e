// The bench's command line. Every option narrows or redirects a full run; none changes what a
// figure means, so a subset's figures compare with the full run's.
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { isTargetName, ON_REQUEST_TARGETS, TARGET_NAMES, type TargetName } from './targets.js';

export const PHASES = ['echo', 'ping', 'sdk', 'scale', 'sessions'] as const;
export type Phase = (typeof PHASES)[number];
export type ScenarioName = 'sequential' | 'concurrent';

/** The run `--compare` weighs against when it names none: the latest full run, kept in the repository. */
export const BASELINE = fileURLToPath(new URL('./baseline.json', import.meta.url));

export interface Options {
  readonly phases: readonly Phase[];
  readonly scenarios: readonly ScenarioName[];
  readonly targets: readonly TargetName[];
  readonly jsonPath: string;
  readonly comparePath: string | undefined;
  /** The target whose front process is profiled during its measured rounds; undefined: no profile. */
  readonly profileTarget: TargetName | undefined;
  readonly logLevel: string;
  readonly keep: boolean;
  readonly gatewayCli: string | undefined;
  readonly gatewayNodeArgs: readonly string[] | undefined;
  /** --help: print USAGE and run nothing. */
  readonly help: boolean;
}

export const USAGE = `npm run bench -- [options]
  --only PHASE          run only these phases (repeatable, or comma-separated): ${PHASES.join(', ')}
  --scenario NAME       only sequential or concurrent, in the echo and sdk phases
  --target NAME         only these targets in the echo, ping and sdk phases (repeatable, or comma-separated): ${TARGET_NAMES.join(', ')}
                        (${ON_REQUEST_TARGETS.join(', ')} only when named here)
  --json PATH           where the figures go (default bench/results/latest.json)
  --compare [PATH]      print the change against an earlier run's JSON (default bench/baseline.json)
  --profile             CPU-profile a front (default gw-stdio-2025) during its measured rounds and summarise it
                        (--cpu-prof is the same); --profile-target NAME picks another target's front
  --log-level LEVEL     the gateways' pino level (default info, as deployed)
  --keep                keep the run directory (configs, logs, profiles) and print where it is
  --gateway-cli FILE    another build of the gateway CLI (A/B runs)
  --gateway-node-arg A  a node option for the gateways only (repeatable)
  -h, --help            print this and exit`;

export function parseOptions(args: readonly string[], defaultJson: string): Options {
  const { values } = parseArgs({
    args: withBaseline(args),
    options: {
      only: { type: 'string', multiple: true },
      scenario: { type: 'string' },
      target: { type: 'string', multiple: true },
      json: { type: 'string' },
      compare: { type: 'string' },
      profile: { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
      'profile-target': { type: 'string' },
      'log-level': { type: 'string', default: 'info' },
      keep: { type: 'boolean', default: false },
      'gateway-cli': { type: 'string' },
      'gateway-node-arg': { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const phases = (values.only ?? [...PHASES]).flatMap((value) => value.split(','));
  const badPhase = phases.find((phase) => !(PHASES as readonly string[]).includes(phase));
  if (badPhase !== undefined) throw new Error(`--only: expected ${PHASES.join(', ')}, got "${badPhase}"`);
  const { scenario } = values;
  if (scenario !== undefined && scenario !== 'sequential' && scenario !== 'concurrent') throw new Error(`--scenario: expected sequential or concurrent, got "${scenario}"`);
  const targets = (values.target ?? TARGET_NAMES.filter((name) => !ON_REQUEST_TARGETS.includes(name))).flatMap((value) => value.split(','));
  const profileTarget = values['profile-target'] ?? (values.profile || values['cpu-prof'] ? 'gw-stdio-2025' : undefined);
  const unknown = [...targets, ...(profileTarget === undefined ? [] : [profileTarget])].find((name) => !isTargetName(name));
  if (unknown !== undefined) throw new Error(`--target: expected one of ${TARGET_NAMES.join(', ')}, got "${unknown}"`);
  return {
    // In the run's order and the table's, whatever the order on the command line.
    phases: PHASES.filter((phase) => phases.includes(phase)),
    scenarios: scenario === undefined ? ['sequential', 'concurrent'] : [scenario],
    targets: TARGET_NAMES.filter((name) => targets.includes(name)),
    jsonPath: values.json ?? defaultJson,
    comparePath: values.compare,
    profileTarget: profileTarget as TargetName | undefined,
    logLevel: values['log-level'],
    keep: values.keep,
    gatewayCli: values['gateway-cli'],
    gatewayNodeArgs: values['gateway-node-arg'],
    help: values.help,
  };
}

/** `--compare` with no path means the baseline: parseArgs has no optional values, so it is filled in here. */
function withBaseline(args: readonly string[]): string[] {
  return args.flatMap((arg, i) => {
    const next = args[i + 1];
    return arg === '--compare' && (next === undefined || next.startsWith('--')) ? [arg, BASELINE] : [arg];
  });
}
