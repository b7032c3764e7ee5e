// Pinning in the running gateway: the catalogue's ToolGate. It withholds what the policy says
// (verdicts.ts), keeps each server's latest comparison with its pins for /readyz and the metrics,
// and tells of each mismatch once: per server, tool and live definition (and pin), never per call
// or per rebuild. A reload hands it new settings and a new lock file (configure).
import type { PinningConfig } from '../config/schema.js';
import type { JsonObject } from '../protocol/json.js';
import type { ToolGate } from '../gateway/catalogue/tool-gate.js';
import type { Logger } from '../observe/logger.js';
import { renderAddedTool, renderChangedTool, renderRemovedTool } from './diff.js';
import { lockFromLists, type LockFile, type ServerPins } from './lock-file.js';
import { compareServer, judgeTool, withholds, type PinPolicy, type ServerComparison } from './verdicts.js';

/** The audit trail's reasons for a withheld tool. */
export const WITHHELD_REASONS = { changed: 'pin-mismatch', unpinned: 'unpinned' } as const;

/** A tool withheld from clients, told once (to the audit trail). */
export interface WithheldToolEvent {
  readonly server: string;
  /** The upstream's own tool name. */
  readonly name: string;
  readonly reason: (typeof WITHHELD_REASONS)[keyof typeof WITHHELD_REASONS];
  /** The pinned digest; absent for a tool with no pin. */
  readonly pinned?: string;
  readonly live: string;
}

/** One server as /readyz shows it: upstream tool names in code-point order. */
export interface ServerPinReport {
  /** Whether the lock file has the server at all. */
  readonly inLock: boolean;
  /** Not listed to clients (pinning: enforce). */
  readonly withheld: readonly string[];
  /** Listed by the upstream with a definition other than the pinned one. */
  readonly changed: readonly string[];
  /** Listed by the upstream with no pin. */
  readonly unpinned: readonly string[];
  /** Pinned, and no longer listed by the upstream. */
  readonly missing: readonly string[];
}

export interface PinningReport {
  readonly mode: PinPolicy['mode'];
  readonly lockFile: string;
  readonly unpinnedTools: PinPolicy['unpinnedTools'];
  /** Servers whose tools the gateway holds now, by config name. */
  readonly servers: Readonly<Record<string, ServerPinReport>>;
}

/** For the metrics: mismatches are what is logged (and withheld under enforce). */
export interface ServerPinCounts {
  readonly server: string;
  readonly changed: number;
  /** Unpinned tools, counted when unpinnedTools is withhold. */
  readonly unpinned: number;
  readonly missing: number;
  readonly withheld: number;
}

export interface ToolPinningOptions {
  readonly logger: Pick<Logger, 'info' | 'warn'>;
  /** Told once per tool withheld and live definition (the audit line). */
  readonly onWithheld?: (event: WithheldToolEvent) => void;
  /** Which servers are configured now; others (removed by a reload) are left out of reports. */
  readonly isServer?: (server: string) => boolean;
}

const NO_PINS: LockFile = { servers: new Map() };
/** What has been told is remembered up to this many entries, then forgotten (and told again if it recurs). */
const MAX_TOLD = 10_000;

interface Observed {
  readonly tools: readonly JsonObject[];
  readonly generation: number;
  readonly comparison: ServerComparison;
}

export class ToolPinning implements ToolGate {
  #policy: PinPolicy | undefined;
  #lock: LockFile = NO_PINS;
  #lockFile = '';
  /** Bumped by configure: an unchanged list is compared again against new pins or settings. */
  #generation = 0;
  readonly #latest = new Map<string, Observed>();
  readonly #told = new Set<string>();

  constructor(private readonly options: ToolPinningOptions) {}

  /** New settings and pins (at start, and at each reload); `lock` is required unless mode is off. */
  configure(settings: PinningConfig, lock: LockFile | undefined): void {
    this.#generation += 1;
    this.#lockFile = settings.lockFile;
    if (settings.mode === 'off' || lock === undefined) {
      this.#policy = undefined;
      this.#lock = NO_PINS;
      this.#latest.clear();
      return;
    }
    this.#policy = { mode: settings.mode, unpinnedTools: settings.unpinnedTools };
    this.#lock = lock;
    const tools = [...lock.servers.values()].reduce((sum, pins) => sum + pins.size, 0);
    this.options.logger.info(
      { pinning: settings.mode, lockFile: settings.lockFile, unpinnedTools: settings.unpinnedTools, servers: lock.servers.size, tools },
      'pinned tool definitions in force',
    );
  }

  get active(): boolean {
    return this.#policy !== undefined;
  }

  withheld(server: string, tool: JsonObject): string | undefined {
    const policy = this.#policy;
    if (policy === undefined) return undefined;
    const verdict = judgeTool(this.#lock.servers.get(server), tool);
    if (!withholds(policy, verdict)) return undefined;
    return verdict.kind === 'changed' ? WITHHELD_REASONS.changed : WITHHELD_REASONS.unpinned;
  }

  observe(server: string, tools: readonly JsonObject[] | undefined): void {
    if (this.#policy === undefined) return;
    if (tools === undefined) {
      this.#latest.delete(server);
      return;
    }
    const previous = this.#latest.get(server);
    if (previous && previous.tools === tools && previous.generation === this.#generation) return;
    const live = lockFromLists([[server, tools]]).servers.get(server)!;
    const comparison = compareServer(server, this.#lock.servers.get(server), live);
    this.#latest.set(server, { tools, generation: this.#generation, comparison });
    this.#tell(this.#policy, comparison, previous?.comparison, live);
  }

  /** What /readyz shows; undefined when pinning is off. */
  report(): PinningReport | undefined {
    const policy = this.#policy;
    if (policy === undefined) return undefined;
    const servers: Record<string, ServerPinReport> = {};
    for (const server of this.#servers()) {
      const { comparison } = this.#latest.get(server)!;
      const changed = comparison.changed.map((tool) => tool.name);
      const unpinned = comparison.added.map((pin) => pin.definition.name);
      const withheld =
        policy.mode === 'enforce' ? [...changed, ...(policy.unpinnedTools === 'withhold' ? unpinned : [])].sort() : [];
      servers[server] = { inLock: comparison.inLock, withheld, changed, unpinned, missing: comparison.removed.map((pin) => pin.definition.name) };
    }
    return { mode: policy.mode, lockFile: this.#lockFile, unpinnedTools: policy.unpinnedTools, servers };
  }

  /** Per server, for the metrics; empty when pinning is off. */
  counts(): ServerPinCounts[] {
    const report = this.report();
    if (report === undefined) return [];
    const countsUnpinned = report.unpinnedTools === 'withhold';
    return Object.entries(report.servers).map(([server, { changed, unpinned, missing, withheld }]) => ({
      server,
      changed: changed.length,
      unpinned: countsUnpinned ? unpinned.length : 0,
      missing: missing.length,
      withheld: withheld.length,
    }));
  }

  #servers(): string[] {
    const isServer = this.options.isServer ?? (() => true);
    return [...this.#latest.keys()].filter(isServer).sort();
  }

  /** Logs (and audits) what is new in this comparison; once per tool and definition. */
  #tell(policy: PinPolicy, comparison: ServerComparison, previous: ServerComparison | undefined, live: ServerPins): void {
    const { logger, onWithheld } = this.options;
    const { server } = comparison;
    const enforcing = policy.mode === 'enforce';
    for (const { name, pin, live } of comparison.changed) {
      if (!this.#firstTime('changed', server, name, pin.digest, live.digest, policy.mode)) continue;
      const diff = renderChangedTool(name, pin, live).join('\n');
      const fields = { server, tool: name, pinning: policy.mode, pinned: pin.digest, live: live.digest, diff };
      if (enforcing) logger.warn(fields, 'tool withheld: its definition differs from its pin in the lock file');
      else logger.warn(fields, 'tool definition differs from its pin in the lock file; listed anyway (pinning: warn)');
      if (enforcing) onWithheld?.({ server, name, reason: WITHHELD_REASONS.changed, pinned: pin.digest, live: live.digest });
    }
    for (const added of comparison.added) {
      const { name } = added.definition;
      if (!this.#firstTime('unpinned', server, name, '', added.digest, `${policy.mode}/${policy.unpinnedTools}`)) continue;
      const fields = { server, tool: name, pinning: policy.mode, unpinnedTools: policy.unpinnedTools, live: added.digest, diff: renderAddedTool(added).join('\n') };
      if (policy.unpinnedTools === 'allow') {
        logger.info(fields, 'tool has no pin in the lock file; listed (pinning.unpinnedTools: allow)');
        continue;
      }
      if (enforcing) logger.warn(fields, 'tool withheld: it has no pin in the lock file');
      else logger.warn(fields, 'tool has no pin in the lock file; listed anyway (pinning: warn)');
      if (enforcing) onWithheld?.({ server, name, reason: WITHHELD_REASONS.unpinned, live: added.digest });
    }
    for (const pin of comparison.removed) {
      if (!this.#firstTime('missing', server, pin.definition.name, pin.digest, '', '')) continue;
      logger.warn({ server, tool: pin.definition.name, pinning: policy.mode, pinned: pin.digest, diff: renderRemovedTool(pin).join('\n') }, 'pinned tool is no longer listed by its upstream');
    }
    // A tool that matches its pin again (the upstream went back, or the lock file was updated).
    if (previous === undefined) return;
    const nowMismatched = new Set([...comparison.changed.map((tool) => tool.name), ...comparison.added.map((pin) => pin.definition.name)]);
    const wasMismatched = [...previous.changed.map((tool) => tool.name), ...(policy.unpinnedTools === 'withhold' ? previous.added.map((pin) => pin.definition.name) : [])];
    for (const name of wasMismatched) {
      if (!live.has(name) || nowMismatched.has(name)) continue;
      logger.info({ server, tool: name, pinning: policy.mode }, 'tool matches its pin in the lock file again; listed');
    }
  }

  #firstTime(...key: string[]): boolean {
    const joined = key.join('\u0000');
    if (this.#told.has(joined)) return false;
    if (this.#told.size >= MAX_TOLD) this.#told.clear();
    this.#told.add(joined);
    return true;
  }
}
